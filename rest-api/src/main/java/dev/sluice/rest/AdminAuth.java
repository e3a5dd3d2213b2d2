package dev.sluice.rest;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * Guards admin routes with {@code Authorization: Bearer <token>}.
 *
 * <p>The comparison is constant-time: both sides are hashed with SHA-256 first, so {@link
 * MessageDigest#isEqual} compares two 32-byte arrays and the time taken says nothing about the
 * token's content or length. The token is never logged nor echoed in an answer.
 */
final class AdminAuth {
  private static final String BEARER = "bearer ";

  private final byte @Nullable [] tokenDigest;

  AdminAuth(@Nullable String adminToken) {
    this.tokenDigest = adminToken == null || adminToken.isEmpty() ? null : sha256(adminToken);
  }

  /** Throws 401 without a bearer token, 403 with the wrong one; returns when the caller may act. */
  void check(Context ctx) {
    if (tokenDigest == null) {
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
    byte[] presented = sha256(header.substring(BEARER.length()).trim());
    if (!MessageDigest.isEqual(presented, tokenDigest)) {
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
    if (tokenDigest == null) {
      return true;
    }
    if (ctx.header("Authorization") == null) {
      return false;
    }
    check(ctx);
    return true;
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
