package dev.sluice.core.decision;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReservationException;
import dev.sluice.core.ReservationException.Reason;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.WireEnums;
import dev.sluice.core.algorithm.PacedLease;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one key's step answers: one result per operation, in order, each a {@link Decision} or an
 * error that belongs to that operation alone (an unknown rule, a cost above the capacity), and the
 * instant on the deciding member's clock at which the step ran. Errors are codes, not thrown
 * exceptions, so that a batch answers every operation and nothing needs Java serialization.
 */
public final class KeyOutcome {
  /** What a result is. Codes are part of the wire format: never renumber one. */
  public enum Code {
    OK(0),
    UNKNOWN_RULE(1),
    INVALID(2),
    /** A commit of a reservation that is not open; the subject is the {@link Reason}'s name. */
    RESERVATION(3),
    /**
     * A release whose receipt frees nothing (spent, expired); the subject is the {@link
     * ReleaseException.Reason}'s name.
     */
    RELEASE(4);

    private final int code;

    Code(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Code ofCode(int code) {
      return WireEnums.ofCode(values(), Code::code, code, "outcome");
    }
  }

  private final Code[] codes;
  private final Decision[] decisions;
  // Allocated when first needed: most outcomes carry one decision and nothing else (a local answer,
  // an acquire without a lease), and answers made in front of the owner must cost little.
  // For UNKNOWN_RULE the rule name; for INVALID the field at fault; for RESERVATION and RELEASE the
  // reason.
  private String @Nullable [] subjects;
  private String @Nullable [] messages;
  // LEASE_SLOTS per operation: the permits leased on top of an acquire, and when that lease ends;
  // for a paced lease also when its first permit becomes usable and the spacing of the others (0:
  // not paced); and 1 for a lease to the end of its window granted to an ask that could have been
  // answered with a short one (LeaseAsk.WINDOW_SHORT_OR_PACED), which is told which it got.
  private long @Nullable [] leases;
  // True where the admission cannot be given back where it was answered, so its answer carries no
  // receipt: a global rule's answer in a region (released only at home).
  private boolean @Nullable [] noReceipt;
  private final long decidedAtNanos;

  private static final int LEASED = 0;
  private static final int ENDS = 1;
  private static final int FIRST = 2;
  private static final int SPACING = 3;
  private static final int TO_WINDOW_END = 4;
  private static final int LEASE_SLOTS = 5;

  public KeyOutcome(int size, long decidedAtNanos) {
    codes = new Code[size];
    decisions = new Decision[size];
    this.decidedAtNanos = decidedAtNanos;
  }

  /**
   * One decision made in front of the owner (a lease's, a cached denial's, a failure policy's): no
   * owner decided it, so it has no owner instant (0).
   */
  public static KeyOutcome of(Decision decision) {
    KeyOutcome outcome = new KeyOutcome(1, 0);
    outcome.setDecision(0, decision);
    return outcome;
  }

  private long lease(int index, int slot) {
    return leases == null ? 0 : leases[index * LEASE_SLOTS + slot];
  }

  private void setLease(int index, int slot, long value) {
    if (leases == null) {
      leases = new long[codes.length * LEASE_SLOTS];
    }
    leases[index * LEASE_SLOTS + slot] = value;
  }

  /** Every operation answered "unknown rule". */
  public static KeyOutcome unknownRule(int size, String rule) {
    KeyOutcome outcome = new KeyOutcome(size, 0);
    for (int i = 0; i < size; i++) {
      outcome.setError(i, Code.UNKNOWN_RULE, rule, "unknown rule '" + rule + "'");
    }
    return outcome;
  }

  /** Every operation refused for the same reason. */
  public static KeyOutcome invalid(int size, String field, String message) {
    KeyOutcome outcome = new KeyOutcome(size, 0);
    for (int i = 0; i < size; i++) {
      outcome.setError(i, Code.INVALID, field, message);
    }
    return outcome;
  }

  /**
   * Results {@code from .. from + length - 1} as an outcome of their own (same instant): how a
   * batch that merged several callers' operations on one key hands each caller its part.
   */
  public KeyOutcome slice(int from, int length) {
    if (from == 0 && length == codes.length) {
      return this;
    }
    KeyOutcome part = new KeyOutcome(length, decidedAtNanos);
    for (int i = 0; i < length; i++) {
      part.copy(i, this, from + i);
    }
    return part;
  }

  /** Sets result {@code index} to {@code from}'s result {@code fromIndex}, its lease included. */
  public void copy(int index, KeyOutcome from, int fromIndex) {
    codes[index] = from.codes[fromIndex];
    decisions[index] = from.decisions[fromIndex];
    if (from.subjects != null) {
      setText(index, from.subjects[fromIndex], from.messages[fromIndex]);
    }
    if (from.noReceipt != null && from.noReceipt[fromIndex]) {
      setNoReceipt(index);
    }
    if (from.leases != null) {
      setLease(index, LEASED, 0);
      System.arraycopy(
          from.leases, fromIndex * LEASE_SLOTS, leases, index * LEASE_SLOTS, LEASE_SLOTS);
    }
  }

  public void setDecision(int index, Decision decision) {
    codes[index] = Code.OK;
    decisions[index] = decision;
  }

  /**
   * Marks operation {@code index}'s admission as one that cannot be given back through the runtime
   * that answered it, so the pipeline issues it no receipt ({@code AdmissionReceipts}): a global
   * rule's answer in a region, whose permits are released only at the home grid.
   */
  public void setNoReceipt(int index) {
    if (noReceipt == null) {
      noReceipt = new boolean[codes.length];
    }
    noReceipt[index] = true;
  }

  /** Whether operation {@code index}'s admission carries no receipt ({@link #setNoReceipt}). */
  public boolean noReceipt(int index) {
    return noReceipt != null && noReceipt[index];
  }

  /** Records that operation {@code index} was granted a lease of {@code permits} until then. */
  public void setLease(int index, long permits, long endsAtNanos) {
    setLease(index, LEASED, permits);
    setLease(index, ENDS, endsAtNanos);
  }

  /**
   * Records that operation {@code index}, which asked {@link LeaseAsk#WINDOW_SHORT_OR_PACED}, was
   * granted a lease to the end of its window: the asker reads which kind it got from {@link
   * #leaseToWindowEnd}. (A lease granted to an ask {@link LeaseAsk#UNTIL_WINDOW_END} is recorded
   * with {@link #setLease}: builds before this kind of ask read no mark on the wire.)
   */
  public void setLeaseToWindowEnd(int index, long permits, long endsAtNanos) {
    setLease(index, permits, endsAtNanos);
    setLease(index, TO_WINDOW_END, 1);
  }

  /**
   * Whether the lease of operation {@code index} is one to the end of its window granted to an ask
   * that could have been answered with a short one ({@link #setLeaseToWindowEnd}).
   */
  public boolean leaseToWindowEnd(int index) {
    return lease(index, TO_WINDOW_END) == 1;
  }

  /**
   * Records that operation {@code index} was granted a paced lease: its permits become usable one
   * after another ({@link PacedLease}).
   */
  public void setPacedLease(int index, PacedLease lease) {
    setLease(index, lease.permits(), lease.endsAtNanos());
    setLease(index, FIRST, lease.firstAtNanos());
    setLease(index, SPACING, lease.spacingNanos());
  }

  /** The paced lease of operation {@code index}, or null if its lease (if any) is not paced. */
  public @Nullable PacedLease pacedLease(int index) {
    return lease(index, SPACING) > 0
        ? new PacedLease(
            lease(index, LEASED), lease(index, FIRST), lease(index, SPACING), lease(index, ENDS))
        : null;
  }

  /** The permits leased with operation {@code index} (0: none). */
  public long leased(int index) {
    return lease(index, LEASED);
  }

  /** When the lease of operation {@code index} ends, on the deciding member's clock. */
  public long leaseEndsAtNanos(int index) {
    return lease(index, ENDS);
  }

  /** Records an error; {@code message} is the whole text, {@code subject: ...} included. */
  public void setError(int index, Code code, String subject, String message) {
    codes[index] = code;
    setText(index, subject, message);
  }

  private void setText(int index, @Nullable String subject, @Nullable String message) {
    if (subjects == null) {
      subjects = new String[codes.length];
      messages = new String[codes.length];
    }
    subjects[index] = subject;
    messages[index] = message;
  }

  public int size() {
    return codes.length;
  }

  /** When the step ran, on the deciding member's clock (0 if it never ran). */
  public long decidedAtNanos() {
    return decidedAtNanos;
  }

  public Code code(int index) {
    return codes[index];
  }

  /**
   * The subject of an error: the rule for UNKNOWN_RULE, the field for INVALID, the reason's name
   * for RESERVATION.
   */
  public String subject(int index) {
    return subjects == null ? null : subjects[index];
  }

  public String message(int index) {
    return messages == null ? null : messages[index];
  }

  /** The decision, or null for an error, without throwing. */
  public Decision decisionOrNull(int index) {
    return codes[index] == Code.OK ? decisions[index] : null;
  }

  /**
   * The decision for operation {@code index}.
   *
   * @throws UnknownRuleException if the rule was not defined where the step ran
   * @throws InvalidPolicyException if the operation could not be honoured (a cost above capacity)
   * @throws ReservationException if it commits a reservation that is not open
   * @throws ReleaseException if it gives back a receipt that frees nothing
   */
  public Decision decision(int index) {
    return switch (codes[index]) {
      case OK -> decisions[index];
      case UNKNOWN_RULE -> throw new UnknownRuleException(subject(index));
      case INVALID -> throw new InvalidPolicyException(subject(index), stripField(index));
      case RESERVATION ->
          throw new ReservationException(Reason.valueOf(subject(index)), message(index));
      case RELEASE ->
          throw new ReleaseException(
              ReleaseException.Reason.valueOf(subject(index)), message(index));
    };
  }

  private String stripField(int index) {
    String prefix = subject(index) + ": ";
    String message = message(index);
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof KeyOutcome other)
        || decidedAtNanos != other.decidedAtNanos
        || !Arrays.equals(codes, other.codes)
        || !Arrays.equals(decisions, other.decisions)) {
      return false;
    }
    for (int i = 0; i < codes.length; i++) {
      if (!Objects.equals(subject(i), other.subject(i))
          || !Objects.equals(message(i), other.message(i))
          || leased(i) != other.leased(i)
          || leaseEndsAtNanos(i) != other.leaseEndsAtNanos(i)
          || !Objects.equals(pacedLease(i), other.pacedLease(i))
          || leaseToWindowEnd(i) != other.leaseToWindowEnd(i)
          || noReceipt(i) != other.noReceipt(i)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(codes) * 31 + Arrays.hashCode(decisions);
  }

  @Override
  public String toString() {
    return "KeyOutcome{codes="
        + Arrays.toString(codes)
        + ", decisions="
        + Arrays.toString(decisions)
        + ", messages="
        + (messages == null ? "[]" : Arrays.toString(messages))
        + ", decidedAt="
        + decidedAtNanos
        + '}';
  }
}
