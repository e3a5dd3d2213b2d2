package dev.sluice.core;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret that seals {@link Receipt}s: HMAC-SHA256 over a receipt's content, cut to 128 bits.
 * Whoever holds it can issue receipts, so it stays with the runtime that decides: one per local
 * limiter (its receipts mean nothing elsewhere, as its counts do not), and one per grid, shared by
 * every member and client of the cluster through a map of the grid's own, so that a receipt a check
 * answered on one node is accepted by a release on any other (docs/rest-api.md, "Giving permits
 * back"). Without it a caller cannot make a receipt the runtime accepts: guessing a 128-bit tag is
 * hopeless, and a receipt of another key, cost or instant carries another tag.
 */
public final class ReceiptKey {
  /** The secret's length: HMAC-SHA256's own block of strength. */
  public static final int BYTES = 32;

  /** The tag's length: 128 bits, beyond guessing, half the size of a full HMAC-SHA256. */
  static final int TAG_BYTES = 16;

  /** What every tag's input starts with: a tag means "a Sluice receipt" and nothing else. */
  private static final byte[] DOMAIN =
      "sluice receipt v1\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  // Mac instances are not thread-safe and getInstance looks up a provider: one per thread.
  private final ThreadLocal<Mac> macs;

  /**
   * A key of these {@value #BYTES} secret bytes (copied).
   *
   * @throws IllegalArgumentException for another length
   */
  public ReceiptKey(byte[] secret) {
    if (secret == null || secret.length != BYTES) {
      throw new IllegalArgumentException("a receipt key is " + BYTES + " bytes");
    }
    SecretKeySpec spec = new SecretKeySpec(secret.clone(), "HmacSHA256");
    this.macs =
        ThreadLocal.withInitial(
            () -> {
              try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(spec);
                return mac;
              } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every JVM has HmacSHA256", e);
              }
            });
  }

  /** {@value #BYTES} bytes from a {@link SecureRandom}: a new secret. */
  public static byte[] newSecret() {
    byte[] secret = new byte[BYTES];
    new SecureRandom().nextBytes(secret);
    return secret;
  }

  /** A key of a new secret: a runtime whose receipts live and die with it (the local limiter). */
  public static ReceiptKey random() {
    return new ReceiptKey(newSecret());
  }

  /** The tag of a receipt's content. */
  byte[] tag(byte[] content) {
    Mac mac = macs.get();
    mac.update(DOMAIN);
    return Arrays.copyOf(mac.doFinal(content), TAG_BYTES);
  }
}
