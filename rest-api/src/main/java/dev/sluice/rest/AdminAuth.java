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
   * Whether the caller may give permits back with a bare count on its own word, as an admin may:
   * when no token is set (admin routes are open then, on loopback or with {@code insecure}), or
   * when it sends the token. Without one it is not an admin here, and the release must prove itself
   * ({@code POST /v1/release}); with a wrong one it is refused, 401 or 403, before anything else.
   */
  boolean admitsBareCount(Context ctx) {
    if (tokenDigest != null && ctx.header("Authorization") == null) {
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
