package dev.sluice.core.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Scope;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Compact encodings shared by the serialized types: variable-length integers (LEB128, 7 bits per
 * byte, zig-zag for signed values), policies and decisions.
 *
 * <p>Why varints: a sliding_window state is three longs, of which two are small counts. Written as
 * fixed longs that is 24 bytes; as zig-zag varints a count below 64 is one byte, and the window
 * start (epoch nanoseconds, 61 bits) is nine, five in {@link StateFormat}'s scaled format when it
 * is a whole second. Every byte saved is saved twice per key (owner and backup).
 *
 * <h2>Compatibility</h2>
 *
 * Each layout here is the only one read: a field that is absent by default is flagged, never
 * inferred from an older layout. Nothing has been released, so a change of layout bumps the format
 * byte of what carries it (each serialized type writes one first; a policy {@link #POLICY_FORMAT})
 * and bytes of earlier builds are refused there, by name. Compatibility starts at the first tag:
 * from then on a new layout still reads the tagged one.
 */
public final class WireFormat {
  /** A bound on operations per key per invocation, against corrupt or hostile input. */
  public static final int MAX_OPS_PER_KEY = 1 << 20;

  private WireFormat() {}

  public static void writeVarLong(ObjectDataOutput out, long value) throws IOException {
    writeUnsignedVarLong(out, zigZag(value));
  }

  public static long readVarLong(ObjectDataInput in) throws IOException {
    return unZigZag(readUnsignedVarLong(in));
  }

  /** Zig-zag maps signed to unsigned so small magnitudes of either sign take few bytes. */
  static long zigZag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  static long unZigZag(long zigZag) {
    return (zigZag >>> 1) ^ -(zigZag & 1);
  }

  /** Writes {@code value} as unsigned, 7 bits per byte, low bits first. */
  static void writeUnsignedVarLong(ObjectDataOutput out, long value) throws IOException {
    while ((value & ~0x7FL) != 0) {
      out.writeByte((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.writeByte((int) value);
  }

  static long readUnsignedVarLong(ObjectDataInput in) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.readByte();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IOException("malformed varint: more than 10 bytes");
  }

  /** The bytes {@link #writeUnsignedVarLong} writes for {@code value}. */
  static int unsignedVarLongSize(long value) {
    return (64 - Long.numberOfLeadingZeros(value | 1) + 6) / 7;
  }

  public static void writeVarInt(ObjectDataOutput out, int value) throws IOException {
    writeVarLong(out, value);
  }

  public static int readVarInt(ObjectDataInput in) throws IOException {
    long value = readVarLong(in);
    if (value != (int) value) {
      throw new IOException("malformed varint: " + value + " does not fit an int");
    }
    return (int) value;
  }

  private static final int SHADOW = 1;
  private static final int COUNT_DENIED = 2;
  private static final int LEASES_OFF = 4;
  private static final int SHADOW_BAN = 8;
  private static final int RELEASE_OPEN = 16;
  // A global policy's scope follows its limits: [on home unreachable][share count][share count ×
  // (region, share)].
  private static final int GLOBAL = 32;

  /** The policy format: a format byte, then flags and limits. */
  static final int POLICY_FORMAT = 3;

  /**
   * Writes a policy: {@code [format 3][flags][n][n × (algorithm code, limit, window, burst,
   * buckets)][scope, if global]}, algorithms by their explicit {@link Algorithm#code()}, numbers as
   * varints.
   */
  public static void writePolicy(ObjectDataOutput out, Policy policy) throws IOException {
    out.writeByte(POLICY_FORMAT);
    out.writeByte(
        (policy.shadow() ? SHADOW : 0)
            | (policy.countDenied() ? COUNT_DENIED : 0)
            | (policy.leases() == Policy.Leases.OFF ? LEASES_OFF : 0)
            | (policy.shadowBans() ? SHADOW_BAN : 0)
            | (policy.release() == Policy.Release.OPEN ? RELEASE_OPEN : 0)
            | (policy.global() ? GLOBAL : 0));
    writeVarInt(out, policy.limits().size());
    for (Limit limit : policy.limits()) {
      out.writeByte(limit.algorithm().code());
      writeVarLong(out, limit.limit());
      writeVarLong(out, limit.windowNanos());
      writeVarLong(out, limit.burst());
      writeVarInt(out, limit.buckets());
    }
    if (policy.global()) {
      Scope scope = policy.scope();
      out.writeByte(scope.onHomeUnreachable().ordinalCode());
      writeVarInt(out, scope.localShares().size());
      for (Map.Entry<String, Double> share : new TreeMap<>(scope.localShares()).entrySet()) {
        out.writeString(share.getKey());
        out.writeDouble(share.getValue());
      }
    }
  }

  private static Scope readScope(ObjectDataInput in) throws IOException {
    Scope.OnHomeUnreachable onHomeUnreachable = Scope.OnHomeUnreachable.ofCode(in.readByte());
    int count = readVarInt(in);
    if (count < 0 || count > 1024) {
      throw new IOException("implausible share count " + count);
    }
    Map<String, Double> shares = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      shares.put(Objects.requireNonNull(in.readString(), "region"), in.readDouble());
    }
    return valid(() -> Scope.atHome(onHomeUnreachable, shares));
  }

  /** Reads a policy; its constructors validate it again, so a corrupt one fails loudly. */
  public static Policy readPolicy(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != POLICY_FORMAT) {
      throw new IOException("unknown policy format " + format);
    }
    int flags = in.readByte();
    int count = readVarInt(in);
    if (count < 1 || count > Policy.MAX_LIMITS) {
      throw new IOException("implausible limit count " + count);
    }
    List<Limit> limits = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int code = in.readByte();
      limits.add(readLimit(in, valid(() -> Algorithm.ofCode(code))));
    }
    Scope scope = (flags & GLOBAL) != 0 ? readScope(in) : Scope.LOCAL;
    return valid(
        () ->
            new Policy(
                limits,
                (flags & SHADOW) != 0,
                (flags & COUNT_DENIED) != 0,
                (flags & LEASES_OFF) != 0 ? Policy.Leases.OFF : Policy.Leases.AUTO,
                (flags & SHADOW_BAN) != 0 ? Policy.OnDenied.SHADOW_BAN : Policy.OnDenied.REJECT,
                (flags & RELEASE_OPEN) != 0 ? Policy.Release.OPEN : Policy.Release.PROOF,
                scope));
  }

  private static Limit readLimit(ObjectDataInput in, Algorithm algorithm) throws IOException {
    long limit = readVarLong(in);
    Duration window = Duration.ofNanos(readVarLong(in));
    long burst = readVarLong(in);
    int buckets = readVarInt(in);
    return valid(() -> new Limit(algorithm, limit, window, burst, buckets));
  }

  /** Runs a validating constructor or lookup, turning its refusal into the stream's failure. */
  private static <T> T valid(java.util.function.Supplier<T> construct) throws IOException {
    try {
      return construct.get();
    } catch (IllegalArgumentException e) {
      throw new IOException("invalid in stream: " + e.getMessage(), e);
    }
  }

  private static final int ALLOWED = 1;
  private static final int SHADOW_DENIED = 2;
  // The fields flagged below follow the delay, in this order, only where they differ from their
  // default: a concurrency rule's permit id (else 0); the index of the limit that decided (else 0,
  // the only index a policy of one limit has); that limit's reset (else resetAfter).
  private static final int HAS_PERMIT_ID = 4;
  private static final int HAS_BINDING_LIMIT = 8;
  // A denial under a policy that shadow-bans. No field follows.
  private static final int SHADOW_BANNED = 16;
  private static final int HAS_BINDING_RESET = 32;

  static void writeDecision(ObjectDataOutput out, Decision decision) throws IOException {
    out.writeByte(
        (decision.allowed() ? ALLOWED : 0)
            | (decision.shadowDenied() ? SHADOW_DENIED : 0)
            | (decision.permitId() != 0 ? HAS_PERMIT_ID : 0)
            | (decision.bindingLimitIndex() != 0 ? HAS_BINDING_LIMIT : 0)
            | (decision.shadowBanned() ? SHADOW_BANNED : 0)
            | (decision.bindingResetAfterNanos() != decision.resetAfterNanos()
                ? HAS_BINDING_RESET
                : 0));
    out.writeByte(decision.decidedBy().code());
    writeVarLong(out, decision.limit());
    writeVarLong(out, decision.remaining());
    writeVarLong(out, decision.retryAfterNanos());
    writeVarLong(out, decision.resetAfterNanos());
    writeVarLong(out, decision.delayNanos());
    if (decision.permitId() != 0) {
      writeVarLong(out, decision.permitId());
    }
    if (decision.bindingLimitIndex() != 0) {
      writeVarInt(out, decision.bindingLimitIndex());
    }
    if (decision.bindingResetAfterNanos() != decision.resetAfterNanos()) {
      writeVarLong(out, decision.bindingResetAfterNanos());
    }
  }

  static Decision readDecision(ObjectDataInput in) throws IOException {
    int flags = in.readByte();
    int decidedByCode = in.readByte();
    Decision.DecidedBy decidedBy = valid(() -> Decision.DecidedBy.ofCode(decidedByCode));
    long limit = readVarLong(in);
    long remaining = readVarLong(in);
    long retryAfter = readVarLong(in);
    long resetAfter = readVarLong(in);
    long delay = readVarLong(in);
    long permitId = (flags & HAS_PERMIT_ID) != 0 ? readVarLong(in) : 0;
    int bindingLimitIndex = (flags & HAS_BINDING_LIMIT) != 0 ? readVarInt(in) : 0;
    if (bindingLimitIndex < 0 || bindingLimitIndex >= Policy.MAX_LIMITS) {
      throw new IOException("implausible binding limit index " + bindingLimitIndex);
    }
    long bindingResetAfter = (flags & HAS_BINDING_RESET) != 0 ? readVarLong(in) : resetAfter;
    return new Decision(
        (flags & ALLOWED) != 0,
        limit,
        remaining,
        retryAfter,
        resetAfter,
        delay,
        (flags & SHADOW_DENIED) != 0,
        decidedBy,
        permitId,
        bindingLimitIndex,
        (flags & SHADOW_BANNED) != 0,
        bindingResetAfter,
        null);
  }

  private static final int NAMED = 0;
  private static final int INLINE = 1;
  private static final int INLINE_UNDER_NAME = 2;

  /**
   * A rule or inline policy: a tag, then the rule's name, or the policy (after its state name, for
   * one under a state name).
   */
  static void writeRef(ObjectDataOutput out, PolicyRef ref) throws IOException {
    if (ref instanceof PolicyRef.Named named) {
      out.writeByte(NAMED);
      out.writeString(named.rule());
    } else {
      PolicyRef.Inline inline = (PolicyRef.Inline) ref;
      if (inline.stateName() == null) {
        out.writeByte(INLINE);
      } else {
        out.writeByte(INLINE_UNDER_NAME);
        out.writeString(inline.stateName());
      }
      writePolicy(out, inline.policy());
    }
  }

  static PolicyRef readRef(ObjectDataInput in) throws IOException {
    int tag = in.readByte();
    if (tag == NAMED) {
      String rule = Objects.requireNonNull(in.readString(), "rule");
      return valid(() -> PolicyRef.rule(rule));
    }
    if (tag == INLINE) {
      return PolicyRef.inline(readPolicy(in));
    }
    if (tag == INLINE_UNDER_NAME) {
      String stateName = Objects.requireNonNull(in.readString(), "stateName");
      Policy policy = readPolicy(in);
      return valid(() -> PolicyRef.inlineUnder(stateName, policy));
    }
    throw new IOException("unknown policy reference tag " + tag);
  }

  /** Set on an acquire's kind byte when a {@code maxWait} follows its lease fields. */
  private static final int WITH_WAIT = 0x40;

  /**
   * A key's command: the state key, the reference, then each operation as {@code [kind code]
   * [permits]} plus, for a release, the admission instant; for an acquire, the lease asked for and
   * (flagged on the kind byte) the longest wait; for a permit's release, its id; for a reserve, its
   * ttl; for a commit, the reservation's id and expiry; for a receipt's release, the admission
   * instant, the lease's lifetime (0: none) and the admission's number.
   */
  public static void writeCommand(ObjectDataOutput out, KeyCommand command) throws IOException {
    out.writeString(command.stateKey());
    writeRef(out, command.ref());
    writeVarInt(out, command.ops().length);
    for (KeyOp op : command.ops()) {
      boolean waits = op.kind() == KeyOp.Kind.ACQUIRE && op.maxWaitNanos() > 0;
      out.writeByte(op.kind().code() | (waits ? WITH_WAIT : 0));
      writeVarLong(out, op.permits());
      switch (op.kind()) {
        case RELEASE -> writeVarLong(out, op.admittedAtNanos());
        case RETURN_LEASE -> {
          writeVarLong(out, op.admittedAtNanos());
          writeVarLong(out, op.leaseNanos());
        }
        case ACQUIRE -> {
          writeVarLong(out, op.leasePermits());
          if (op.leasePermits() > 0) {
            writeVarLong(out, op.leaseNanos());
          }
          if (waits) {
            writeVarLong(out, op.maxWaitNanos());
          }
        }
        case RELEASE_PERMIT -> writeVarLong(out, op.permitId());
        case RESERVE -> writeVarLong(out, op.leaseNanos());
        case COMMIT -> {
          writeVarLong(out, op.permitId());
          writeVarLong(out, op.admittedAtNanos());
        }
        case RELEASE_RECEIPT -> {
          writeVarLong(out, op.admittedAtNanos());
          writeVarLong(out, op.leaseNanos());
          writeVarLong(out, op.permitId());
        }
        case PEEK -> {}
      }
    }
  }

  public static KeyCommand readCommand(ObjectDataInput in) throws IOException {
    String stateKey = Objects.requireNonNull(in.readString(), "stateKey");
    PolicyRef ref = readRef(in);
    int count = readVarInt(in);
    if (count < 0 || count > MAX_OPS_PER_KEY) {
      throw new IOException("implausible operation count " + count);
    }
    KeyOp[] ops = new KeyOp[count];
    for (int i = 0; i < count; i++) {
      int kindByte = in.readByte();
      boolean waits = (kindByte & WITH_WAIT) != 0;
      KeyOp.Kind kind = valid(() -> KeyOp.Kind.ofCode(kindByte & ~WITH_WAIT));
      long permits = readVarLong(in);
      long instant =
          kind == KeyOp.Kind.RELEASE
                  || kind == KeyOp.Kind.RETURN_LEASE
                  || kind == KeyOp.Kind.RELEASE_RECEIPT
              ? readVarLong(in)
              : KeyOp.UNKNOWN;
      long leasePermits = kind == KeyOp.Kind.ACQUIRE ? readVarLong(in) : 0;
      long leaseNanos =
          kind == KeyOp.Kind.RETURN_LEASE
                  || kind == KeyOp.Kind.RESERVE
                  || kind == KeyOp.Kind.RELEASE_RECEIPT
                  || leasePermits > 0
              ? readVarLong(in)
              : 0;
      long maxWait = kind == KeyOp.Kind.ACQUIRE && waits ? readVarLong(in) : 0;
      long permitId =
          kind == KeyOp.Kind.RELEASE_PERMIT
                  || kind == KeyOp.Kind.COMMIT
                  || kind == KeyOp.Kind.RELEASE_RECEIPT
              ? readVarLong(in)
              : 0;
      long admittedAt = kind == KeyOp.Kind.COMMIT ? readVarLong(in) : instant;
      ops[i] =
          valid(
              () ->
                  new KeyOp(
                      kind, permits, admittedAt, leasePermits, leaseNanos, maxWait, permitId));
    }
    return new KeyCommand(stateKey, ref, ops);
  }

  /**
   * Set on a result's code byte when a paced lease's first instant and spacing follow its lease
   * fields.
   */
  private static final int PACED_LEASE = 0x40;

  /**
   * Set on a result's code byte when its lease lasts to the end of its window, granted to an ask
   * {@link dev.sluice.core.decision.LeaseAsk#WINDOW_SHORT_OR_PACED} that could have been answered
   * with a short lease.
   */
  private static final int LEASE_TO_WINDOW_END = 0x20;

  /**
   * Set on a result's code byte when its admission carries no receipt ({@link
   * KeyOutcome#noReceipt}): only a region's answer to a global rule.
   */
  private static final int NO_RECEIPT = 0x10;

  /** A key's outcome: the size, the decision instant, then each result. */
  static void writeOutcome(ObjectDataOutput out, KeyOutcome outcome) throws IOException {
    writeVarInt(out, outcome.size());
    writeVarLong(out, outcome.decidedAtNanos());
    for (int i = 0; i < outcome.size(); i++) {
      KeyOutcome.Code code = outcome.code(i);
      PacedLease paced = code == KeyOutcome.Code.OK ? outcome.pacedLease(i) : null;
      boolean toWindowEnd = code == KeyOutcome.Code.OK && outcome.leaseToWindowEnd(i);
      boolean noReceipt = code == KeyOutcome.Code.OK && outcome.noReceipt(i);
      out.writeByte(
          code.code()
              | (paced != null ? PACED_LEASE : 0)
              | (toWindowEnd ? LEASE_TO_WINDOW_END : 0)
              | (noReceipt ? NO_RECEIPT : 0));
      if (code == KeyOutcome.Code.OK) {
        writeDecision(out, outcome.decisionOrNull(i));
        writeVarLong(out, outcome.leased(i));
        if (outcome.leased(i) > 0) {
          writeVarLong(out, outcome.leaseEndsAtNanos(i));
        }
        if (paced != null) {
          writeVarLong(out, paced.firstAtNanos());
          writeVarLong(out, paced.spacingNanos());
        }
      } else {
        out.writeString(outcome.subject(i));
        out.writeString(outcome.message(i));
      }
    }
  }

  static KeyOutcome readOutcome(ObjectDataInput in) throws IOException {
    int size = readVarInt(in);
    if (size < 0 || size > MAX_OPS_PER_KEY) {
      throw new IOException("implausible outcome size " + size);
    }
    KeyOutcome outcome = new KeyOutcome(size, readVarLong(in));
    for (int i = 0; i < size; i++) {
      int codeByte = in.readByte();
      KeyOutcome.Code code =
          valid(
              () ->
                  KeyOutcome.Code.ofCode(
                      codeByte & ~(PACED_LEASE | LEASE_TO_WINDOW_END | NO_RECEIPT)));
      if (code == KeyOutcome.Code.OK) {
        outcome.setDecision(i, readDecision(in));
        if ((codeByte & NO_RECEIPT) != 0) {
          outcome.setNoReceipt(i);
        }
        long leased = readVarLong(in);
        long endsAt = leased > 0 ? readVarLong(in) : 0;
        if ((codeByte & PACED_LEASE) != 0) {
          long first = readVarLong(in);
          long spacing = readVarLong(in);
          outcome.setPacedLease(i, valid(() -> new PacedLease(leased, first, spacing, endsAt)));
        } else if (leased > 0 && (codeByte & LEASE_TO_WINDOW_END) != 0) {
          outcome.setLeaseToWindowEnd(i, leased, endsAt);
        } else if (leased > 0) {
          outcome.setLease(i, leased, endsAt);
        }
      } else {
        outcome.setError(
            i,
            code,
            Objects.requireNonNull(in.readString(), "subject"),
            Objects.requireNonNull(in.readString(), "message"));
      }
    }
    return outcome;
  }
}
