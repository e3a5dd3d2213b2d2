package dev.sluice.core.pipeline;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.ReservationException;
import dev.sluice.core.ReservationException.Reason;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.algorithm.PacedLease;
import java.util.Arrays;
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
      for (Code c : values()) {
        if (c.code == code) {
          return c;
        }
      }
      throw new IllegalArgumentException("unknown outcome code " + code);
    }
  }

  private final Code[] codes;
  private final Decision[] decisions;
  // For UNKNOWN_RULE the rule name; for INVALID the field at fault; for RESERVATION and RELEASE the
  // reason.
  private final String[] subjects;
  private final String[] messages;
  // Per operation: the permits leased on top of an acquire, and when that lease ends; for a paced
  // lease also when its first permit becomes usable and the spacing of the others (0: not paced).
  private final long[] leased;
  private final long[] leaseEnds;
  private final long[] leaseFirsts;
  private final long[] leaseSpacings;
  // Per operation: a lease to the end of its window granted to an ask that could have been
  // answered with a short one (LeaseAsk.WINDOW_SHORT_OR_PACED), which is told which it got.
  private final boolean[] leasesToWindowEnd;
  private final long decidedAtNanos;

  public KeyOutcome(int size, long decidedAtNanos) {
    codes = new Code[size];
    decisions = new Decision[size];
    subjects = new String[size];
    messages = new String[size];
    leased = new long[size];
    leaseEnds = new long[size];
    leaseFirsts = new long[size];
    leaseSpacings = new long[size];
    leasesToWindowEnd = new boolean[size];
    this.decidedAtNanos = decidedAtNanos;
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
    System.arraycopy(codes, from, part.codes, 0, length);
    System.arraycopy(decisions, from, part.decisions, 0, length);
    System.arraycopy(subjects, from, part.subjects, 0, length);
    System.arraycopy(messages, from, part.messages, 0, length);
    System.arraycopy(leased, from, part.leased, 0, length);
    System.arraycopy(leaseEnds, from, part.leaseEnds, 0, length);
    System.arraycopy(leaseFirsts, from, part.leaseFirsts, 0, length);
    System.arraycopy(leaseSpacings, from, part.leaseSpacings, 0, length);
    System.arraycopy(leasesToWindowEnd, from, part.leasesToWindowEnd, 0, length);
    return part;
  }

  public void setDecision(int index, Decision decision) {
    codes[index] = Code.OK;
    decisions[index] = decision;
  }

  /** Records that operation {@code index} was granted a lease of {@code permits} until then. */
  public void setLease(int index, long permits, long endsAtNanos) {
    leased[index] = permits;
    leaseEnds[index] = endsAtNanos;
  }

  /**
   * Records that operation {@code index}, which asked {@link LeaseAsk#WINDOW_SHORT_OR_PACED}, was
   * granted a lease to the end of its window: the asker reads which kind it got from {@link
   * #leaseToWindowEnd}. (A lease granted to an ask {@link LeaseAsk#UNTIL_WINDOW_END} is recorded
   * with {@link #setLease}: builds before this kind of ask read no mark on the wire.)
   */
  public void setLeaseToWindowEnd(int index, long permits, long endsAtNanos) {
    setLease(index, permits, endsAtNanos);
    leasesToWindowEnd[index] = true;
  }

  /**
   * Whether the lease of operation {@code index} is one to the end of its window granted to an ask
   * that could have been answered with a short one ({@link #setLeaseToWindowEnd}).
   */
  public boolean leaseToWindowEnd(int index) {
    return leasesToWindowEnd[index];
  }

  /**
   * Records that operation {@code index} was granted a paced lease: its permits become usable one
   * after another ({@link PacedLease}).
   */
  public void setPacedLease(int index, PacedLease lease) {
    setLease(index, lease.permits(), lease.endsAtNanos());
    leaseFirsts[index] = lease.firstAtNanos();
    leaseSpacings[index] = lease.spacingNanos();
  }

  /** The paced lease of operation {@code index}, or null if its lease (if any) is not paced. */
  public @Nullable PacedLease pacedLease(int index) {
    return leaseSpacings[index] > 0
        ? new PacedLease(leased[index], leaseFirsts[index], leaseSpacings[index], leaseEnds[index])
        : null;
  }

  /** The permits leased with operation {@code index} (0: none). */
  public long leased(int index) {
    return leased[index];
  }

  /** When the lease of operation {@code index} ends, on the deciding member's clock. */
  public long leaseEndsAtNanos(int index) {
    return leaseEnds[index];
  }

  /** Records an error; {@code message} is the whole text, {@code subject: ...} included. */
  public void setError(int index, Code code, String subject, String message) {
    codes[index] = code;
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
    return subjects[index];
  }

  public String message(int index) {
    return messages[index];
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
      case UNKNOWN_RULE -> throw new UnknownRuleException(subjects[index]);
      case INVALID -> throw new InvalidPolicyException(subjects[index], stripField(index));
      case RESERVATION ->
          throw new ReservationException(Reason.valueOf(subjects[index]), messages[index]);
      case RELEASE ->
          throw new ReleaseException(
              ReleaseException.Reason.valueOf(subjects[index]), messages[index]);
    };
  }

  private String stripField(int index) {
    String prefix = subjects[index] + ": ";
    String message = messages[index];
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyOutcome other
        && decidedAtNanos == other.decidedAtNanos
        && Arrays.equals(codes, other.codes)
        && Arrays.equals(decisions, other.decisions)
        && Arrays.equals(subjects, other.subjects)
        && Arrays.equals(messages, other.messages)
        && Arrays.equals(leased, other.leased)
        && Arrays.equals(leaseEnds, other.leaseEnds)
        && Arrays.equals(leaseFirsts, other.leaseFirsts)
        && Arrays.equals(leaseSpacings, other.leaseSpacings)
        && Arrays.equals(leasesToWindowEnd, other.leasesToWindowEnd);
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
        + Arrays.toString(messages)
        + ", decidedAt="
        + decidedAtNanos
        + '}';
  }
}
