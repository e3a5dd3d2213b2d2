package dev.sluice.core;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How the ids callers hold ({@link ReservationId}, {@link Receipt}) name the rule or inline policy
 * they are about: {@code [0][rule name]}, {@code [1][policy]} for an inline policy with a state of
 * its own, or {@code [2][state name][policy]} for one under a state name ({@link
 * PolicyRef#inlineUnder}), where the policy is {@code [shadow][countDenied][leases][n][n ×
 * (algorithm code, limit, window, burst, buckets)]}. An id needs only itself to find its key, so an
 * inline policy travels whole. Not its onDenied: that is no part of the key's state ({@link
 * Policy#identity}), and a commit or a release answers the key's state, never a ban; nor its
 * release setting, which an inline policy never opens.
 */
final class PolicyRefCodec {
  private static final int NAMED = 0;
  private static final int INLINE = 1;
  private static final int INLINE_UNDER_NAME = 2;

  private PolicyRefCodec() {}

  static void write(DataOutput out, PolicyRef ref) throws IOException {
    if (ref instanceof PolicyRef.Named named) {
      out.writeByte(NAMED);
      out.writeUTF(named.rule());
      return;
    }
    PolicyRef.Inline inline = (PolicyRef.Inline) ref;
    Policy policy = inline.policy();
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

  /**
   * The reference {@link #write} wrote.
   *
   * @throws IOException if the bytes are not one, e.g. an unknown tag
   * @throws IllegalArgumentException if they name a rule or policy that does not validate
   */
  static PolicyRef read(DataInput in) throws IOException {
    return switch (in.readByte()) {
      case NAMED -> PolicyRef.rule(in.readUTF());
      case INLINE -> PolicyRef.inline(readPolicy(in));
      case INLINE_UNDER_NAME -> {
        String stateName = in.readUTF();
        yield PolicyRef.inlineUnder(stateName, readPolicy(in));
      }
      default -> throw new IOException("unknown policy reference tag");
    };
  }

  private static Policy readPolicy(DataInput in) throws IOException {
    boolean shadow = in.readBoolean();
    boolean countDenied = in.readBoolean();
    int leases = in.readByte();
    int count = in.readByte();
    if (leases < 0 || leases >= Policy.Leases.values().length || count < 1) {
      throw new IOException("malformed inline policy");
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
}
