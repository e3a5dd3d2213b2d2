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
   * Whether the caller may see what only an admin sees (key text in the console's stats): yes
   * without a configured token or with the right one, no without an {@code Authorization} header.
   *
   * @throws ApiError 403 for a wrong token, so that a mistyped token is refused rather than
   *     silently shown masked keys
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
