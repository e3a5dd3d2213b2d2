package dev.sluice.rest;

import io.javalin.http.Context;
import org.jspecify.annotations.Nullable;

/**
 * Guards admin routes with {@code Authorization: Bearer <token>}, compared by {@link AdminToken}
 * (constant time; the token is never logged nor echoed in an answer).
 */
final class AdminAuth {
  private static final String BEARER = "bearer ";

  private final AdminToken token;

  AdminAuth(@Nullable String adminToken) {
    this.token = new AdminToken(adminToken);
  }

  /** Throws 401 without a bearer token, 403 with the wrong one; returns when the caller may act. */
  void check(Context ctx) {
    if (!token.configured()) {
      return;
    }
    String header = ctx.header("Authorization");
    if (header == null
        || header.length() < BEARER.length()
        || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      ctx.header("WWW-Authenticate", "Bearer realm=\"sluice\"");
      throw new ApiError(
          401,
          ApiError.UNAUTHORIZED,
          "this is an admin route; send the admin token as 'Authorization: Bearer <token>'");
    }
    if (!token.matches(header.substring(BEARER.length()).trim())) {
      throw new ApiError(403, ApiError.FORBIDDEN, "the bearer token is not the admin token");
    }
  }

  /**
   * Whether the caller is an admin here: yes without a configured token (admin routes are open
   * then, on loopback or with {@code insecure}) or with the right one, no without an {@code
   * Authorization} header. What only an admin may do hangs on it: see key text in the console's
   * stats, and give permits back with a bare count on its own word ({@code POST /v1/release});
   * anyone else sees masked keys, and its release must prove itself.
   *
   * @throws ApiError 401 or 403 for a token that is not the admin token, so that a mistyped token
   *     is refused rather than silently shown masked keys or answered as a caller without proof
   */
  boolean isAdmin(Context ctx) {
    if (!token.configured()) {
      return true;
    }
    if (ctx.header("Authorization") == null) {
      return false;
    }
    check(ctx);
    return true;
  }
}
