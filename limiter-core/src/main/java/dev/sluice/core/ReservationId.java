package dev.sluice.core;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Base64;

/**
 * What a reservation id says: the key it holds permits on (a rule or inline policy and a subject),
 * the number the key's owner gave it, and when it expires on the owner's clock. A commit needs only
 * the id, so the id carries where to go; the owner's ledger decides whether it is open, so a forged
 * or stale id can settle nothing (docs/algorithms.md, "Reservations").
 *
 * <p>Written as URL-safe base64 (no padding) of {@code [version 1][id][expiresAt][subject][ref]},
 * the reference a rule name or the inline policy's limits and flags (after its state name, for one
 * under a state name): opaque to callers, safe in a JSON string, a header or a URL.
 *
 * @param ref the rule or inline policy the reservation was made under
 * @param subject the key, as the caller gave it
 * @param number the id the key's owner gave it, unique on that key
 * @param expiresAtNanos when it is settled at its estimate if not committed (owner's clock)
 */
public record ReservationId(PolicyRef ref, String subject, long number, long expiresAtNanos) {
  private static final int VERSION = 1;

  /** The shortest time a reservation may stay open. */
  public static final Duration MIN_TTL = Duration.ofMillis(1);

  /** The longest time a reservation may stay open. */
  public static final Duration MAX_TTL = Duration.ofDays(1);

  /**
   * Checks a reservation's ttl, the one place every runtime does.
   *
   * @throws InvalidPolicyException naming {@code ttl}
   */
  public static Duration checkTtl(Duration ttl) {
    if (ttl == null) {
      throw new InvalidPolicyException("ttl", "is required: how long the reservation stays open");
    }
    if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
      throw new InvalidPolicyException(
          "ttl", "must be between 1ms and 1d, was " + Durations.format(ttl));
    }
    return ttl;
  }

  /** The id as callers see it. */
  public String encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(number);
      out.writeLong(expiresAtNanos);
      out.writeUTF(subject);
      PolicyRefCodec.write(out, ref);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
  }

  /**
   * The reservation {@code text} names.
   *
   * @throws InvalidPolicyException naming {@code reservationId} if it is missing or not an id a
   *     reservation was given
   */
  public static ReservationId parse(String text) {
    if (text == null || text.isEmpty()) {
      throw new InvalidPolicyException(
          "reservationId", "is required: the id the reservation was answered with");
    }
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(Base64.getUrlDecoder().decode(text)))) {
      if (in.readByte() != VERSION) {
        throw malformed();
      }
      long number = in.readLong();
      long expiresAt = in.readLong();
      String subject = in.readUTF();
      PolicyRef ref = PolicyRefCodec.read(in);
      if (in.available() > 0 || number <= 0) {
        throw malformed();
      }
      StateKey.checkSubject(subject);
      return new ReservationId(ref, subject, number, expiresAt);
    } catch (IOException | IllegalArgumentException e) {
      // Base64 errors, truncation, an unknown tag, and a rule name or policy that does not
      // validate.
      throw malformed();
    }
  }

  private static InvalidPolicyException malformed() {
    return new InvalidPolicyException(
        "reservationId", "is not an id a reservation was answered with");
  }
}
