package dev.sluice.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.jspecify.annotations.Nullable;

/**
 * The admin token, compared in constant time: the one check behind every front end's admin calls
 * (REST's {@code Authorization: Bearer}, the Redis port's {@code AUTH}).
 *
 * <p>Both sides are hashed with SHA-256 first, so {@link MessageDigest#isEqual} compares two
 * 32-byte arrays and the time taken says nothing about the token's content or length. The token is
 * never logged nor echoed.
 */
public final class AdminToken {
  private final byte @Nullable [] digest;

  /**
   * @param token the configured admin token; null or empty: none (admin calls are open)
   */
  public AdminToken(@Nullable String token) {
    this.digest = token == null || token.isEmpty() ? null : sha256(token);
  }

  /** Whether an admin token is configured at all. */
  public boolean configured() {
    return digest != null;
  }

  /** Whether {@code presented} is the admin token (false when none is configured). */
  public boolean matches(String presented) {
    return digest != null && MessageDigest.isEqual(sha256(presented), digest);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
