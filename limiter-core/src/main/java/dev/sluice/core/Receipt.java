package dev.sluice.core;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Proof that permits were admitted: what an admitting {@link Decision} carries ({@link
 * Decision#receipt()}) and what {@link RateLimiter#release(Receipt)} takes to give them back.
 *
 * <h2>What a receipt binds, and why</h2>
 *
 * <ul>
 *   <li><b>The key, and the rule or inline policy</b> (as its state key is made of them): it gives
 *       back on the key it was admitted on, nowhere else.
 *   <li><b>The cost</b>: it gives back what was admitted, never more.
 *   <li><b>The instant of the admission</b> on the owner's clock (for an answer from a lease, the
 *       lease's grant, and its lifetime): the release is the exact undo of that admission ({@link
 *       dev.sluice.core.algorithm.LimiterAlgorithm#release(long[], long, long, long)}), and frees
 *       nothing once the window it was admitted in has ended (judged by the key's owner, docs/
 *       rest-api.md, "Giving permits back").
 *   <li><b>A number unique to the admission</b> (the permit id of a concurrency permit, else
 *       random): the owner remembers the receipts given back on a key until their window ends, so
 *       that one frees at most once.
 *   <li><b>A 128-bit tag</b>: HMAC-SHA256 of all the above under the runtime's {@link ReceiptKey}.
 *       Changing any field, or making one up, needs the secret.
 * </ul>
 *
 * <p>Written as URL-safe base64 (no padding) of {@code [version 1][permits][admittedAt][lease]
 * [number][subject][ref][tag]}: opaque to callers, safe in JSON, a header or a URL. A receipt that
 * a decision carries is sealed when it is first written or given back, not when the decision is
 * made: most admissions are never released, and their receipts cost no HMAC.
 */
public final class Receipt implements ReleaseProof {
  private static final int VERSION = 1;

  private final PolicyRef ref;
  private final String subject;
  private final long permits;
  private final long admittedAtNanos;
  private final long leaseNanos;
  private final long number;
  private final @Nullable ReceiptKey issuer;
  private volatile byte @Nullable [] tag;

  private Receipt(
      PolicyRef ref,
      String subject,
      long permits,
      long admittedAtNanos,
      long leaseNanos,
      long number,
      @Nullable ReceiptKey issuer,
      byte @Nullable [] tag) {
    this.ref = Objects.requireNonNull(ref, "ref");
    this.subject = StateKey.checkSubject(subject);
    if (permits < 1) {
      throw new InvalidPolicyException("receipt", "proves an admission of at least 1 permit");
    }
    if (leaseNanos < 0) {
      throw new InvalidPolicyException("receipt", "a lease's lifetime is never negative");
    }
    this.permits = permits;
    this.admittedAtNanos = admittedAtNanos;
    this.leaseNanos = leaseNanos;
    this.number = number;
    this.issuer = issuer;
    this.tag = tag;
  }

  /**
   * The receipt of an admission, sealed with {@code key} (lazily, see the class comment).
   *
   * @param admittedAtNanos when the owner admitted the permits, on its clock; for an answer from a
   *     lease, when the lease was granted
   * @param leaseNanos 0 for an admission the owner made for this request; the lease's lifetime as
   *     granted for an answer from a lease (whose give-back is the lease's exact undo)
   * @param number unique on the key among admissions whose window has not ended
   */
  public static Receipt issue(
      PolicyRef ref,
      String subject,
      long permits,
      long admittedAtNanos,
      long leaseNanos,
      long number,
      ReceiptKey key) {
    return new Receipt(
        ref,
        subject,
        permits,
        admittedAtNanos,
        leaseNanos,
        number,
        Objects.requireNonNull(key, "key"),
        null);
  }

  public PolicyRef ref() {
    return ref;
  }

  public String subject() {
    return subject;
  }

  /** The permits admitted, which a release of this receipt gives back. */
  public long permits() {
    return permits;
  }

  /** When the owner admitted them (for a lease's answer, granted the lease), on its clock. */
  public long admittedAtNanos() {
    return admittedAtNanos;
  }

  /** 0, or the lifetime of the lease the permits were answered from. */
  public long leaseNanos() {
    return leaseNanos;
  }

  /** The admission's number on its key: what the owner remembers once it is given back. */
  public long number() {
    return number;
  }

  /** The release this receipt asks for: its key, its cost, and itself as the proof. */
  public Check release() {
    return new Check(ref, subject, permits, java.time.Duration.ZERO, this);
  }

  /** Whether this receipt's tag is the one {@code key} gives its content: issued under it. */
  public boolean sealedWith(ReceiptKey key) {
    return MessageDigest.isEqual(tag(), key.tag(content()));
  }

  /** The receipt as callers hold it. */
  public String encode() {
    byte[] content = content();
    byte[] sealed = Arrays.copyOf(content, content.length + ReceiptKey.TAG_BYTES);
    System.arraycopy(tag(), 0, sealed, content.length, ReceiptKey.TAG_BYTES);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(sealed);
  }

  /**
   * The receipt {@code text} encodes, not yet checked against any key ({@link #sealedWith}).
   *
   * @throws InvalidPolicyException naming {@code receipt} if it is missing or not a receipt
   */
  public static Receipt parse(@Nullable String text) {
    if (text == null || text.isEmpty()) {
      throw new InvalidPolicyException(
          "receipt", "is required: the receipt the admitting check answered");
    }
    try {
      byte[] sealed = Base64.getUrlDecoder().decode(text);
      if (sealed.length <= ReceiptKey.TAG_BYTES) {
        throw malformed();
      }
      int contentLength = sealed.length - ReceiptKey.TAG_BYTES;
      try (DataInputStream in =
          new DataInputStream(new ByteArrayInputStream(sealed, 0, contentLength))) {
        if (in.readByte() != VERSION) {
          throw malformed();
        }
        long permits = in.readLong();
        long admittedAt = in.readLong();
        long lease = in.readLong();
        long number = in.readLong();
        String subject = in.readUTF();
        PolicyRef ref = PolicyRefCodec.read(in);
        if (in.available() > 0) {
          throw malformed();
        }
        byte[] tag = Arrays.copyOfRange(sealed, contentLength, sealed.length);
        return new Receipt(ref, subject, permits, admittedAt, lease, number, null, tag);
      }
    } catch (IOException | IllegalArgumentException e) {
      // Base64 errors, truncation, an unknown tag, a rule or policy that does not validate.
      throw malformed();
    }
  }

  private static InvalidPolicyException malformed() {
    return new InvalidPolicyException("receipt", "is not a receipt a check answered");
  }

  private byte[] tag() {
    byte[] sealed = tag;
    if (sealed == null) {
      // Only an issued receipt has no tag yet, and it has its issuer's key.
      sealed = Objects.requireNonNull(issuer).tag(content());
      tag = sealed;
    }
    return sealed;
  }

  /** The bytes the tag seals: every field, as written. */
  private byte[] content() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(permits);
      out.writeLong(admittedAtNanos);
      out.writeLong(leaseNanos);
      out.writeLong(number);
      out.writeUTF(subject);
      PolicyRefCodec.write(out, ref);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /** Equal receipts name the same admission; whether either is genuine is {@link #sealedWith}'s. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Receipt other
        && permits == other.permits
        && admittedAtNanos == other.admittedAtNanos
        && leaseNanos == other.leaseNanos
        && number == other.number
        && subject.equals(other.subject)
        && ref.equals(other.ref);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ref, subject, permits, admittedAtNanos, leaseNanos, number);
  }

  /** {@link #encode()}: a receipt prints as it travels. */
  @Override
  public String toString() {
    return encode();
  }
}
