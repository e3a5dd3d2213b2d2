package dev.sluice.core;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

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
  private static final int NAMED = 0;
  private static final int INLINE = 1;
  private static final int INLINE_UNDER_NAME = 2;

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
      if (ref instanceof PolicyRef.Named named) {
        out.writeByte(NAMED);
        out.writeUTF(named.rule());
      } else {
        PolicyRef.Inline inline = (PolicyRef.Inline) ref;
        Policy policy = inline.policy();
        // Not onDenied: it is no part of the key's state (Policy#identity), and a commit answers
        // the key's state, never a ban.
        if (inline.stateName() == null) {
          out.writeByte(INLINE);
        } else {
          out.writeByte(INLINE_UNDER_NAME);
          out.writeUTF(inline.stateName());
        }
        out.writeBoolean(policy.shadow());
        out.writeBoolean(policy.countDenied());
        out.writeByte(policy.leases().ordinal());
        out.writeByte(policy.limits().size());
        for (Limit limit : policy.limits()) {
          out.writeByte(limit.algorithm().code());
          out.writeLong(limit.limit());
          out.writeLong(limit.windowNanos());
          out.writeLong(limit.burst());
          out.writeInt(limit.buckets());
        }
      }
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
      PolicyRef ref =
          switch (in.readByte()) {
            case NAMED -> PolicyRef.rule(in.readUTF());
            case INLINE -> PolicyRef.inline(readPolicy(in));
            case INLINE_UNDER_NAME -> {
              String stateName = in.readUTF();
              yield PolicyRef.inlineUnder(stateName, readPolicy(in));
            }
            default -> throw malformed();
          };
      if (in.available() > 0 || number <= 0) {
        throw malformed();
      }
      StateKey.checkSubject(subject);
      return new ReservationId(ref, subject, number, expiresAt);
    } catch (IOException | IllegalArgumentException e) {
      // Base64 errors, truncation, and a rule name or policy that does not validate.
      throw malformed();
    }
  }

  private static Policy readPolicy(DataInputStream in) throws IOException {
    boolean shadow = in.readBoolean();
    boolean countDenied = in.readBoolean();
    int leases = in.readByte();
    int count = in.readByte();
    if (leases < 0 || leases >= Policy.Leases.values().length || count < 1) {
      throw malformed();
    }
    List<Limit> limits = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Algorithm algorithm = Algorithm.ofCode(in.readByte());
      long limit = in.readLong();
      Duration window = Duration.ofNanos(in.readLong());
      long burst = in.readLong();
      int buckets = in.readInt();
      limits.add(new Limit(algorithm, limit, window, burst, buckets));
    }
    return new Policy(limits, shadow, countDenied, Policy.Leases.values()[leases]);
  }

  private static InvalidPolicyException malformed() {
    return new InvalidPolicyException(
        "reservationId", "is not an id a reservation was answered with");
  }
}
