package dev.sluice.core.pipeline;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Gives admissions their receipts, once for every runtime and every way an admission is made (the
 * owner's answer to a check or a batch, a lease holder's local answer), and turns the receipt a
 * release shows into the operation that undoes its admission ({@link KeyOp#releaseReceipt}).
 *
 * <h2>What a receipt says, and where it comes from</h2>
 *
 * The owner's answer says when it decided ({@link KeyOutcome#decidedAtNanos()}); a booking's
 * permits, or a leaky bucket's, count from the instant the caller may proceed, that instant plus
 * the decision's delay, and that is the admission instant the receipt carries: the one whose exact
 * undo frees what the admission took (docs/algorithms.md, "Giving permits back"). A lease's answer
 * carries the lease's grant instant and lifetime, whose exact undo is the lease's own return. The
 * admission's number is its concurrency permit's id where it has one (so the receipt releases that
 * permit), else 64 random bits: unique among the receipts of a key's window but by a chance of
 * about n² / 2^65.
 *
 * <p>The seal is the runtime's {@link Backend#receiptKey()}, and is computed only when a receipt is
 * first written or given back (most are neither).
 */
final class AdmissionReceipts {
  private final Backend backend;

  AdmissionReceipts(Backend backend) {
    this.backend = backend;
  }

  /**
   * {@code decision}, the owner's answer to {@code check} decided at {@code decidedAtNanos} on its
   * clock, with its receipt if it admitted permits.
   */
  Decision ofOwnerAnswer(Check check, Decision decision, long decidedAtNanos) {
    if (!admits(check, decision)) {
      return decision;
    }
    long admittedAt = saturatedAdd(decidedAtNanos, decision.delayNanos());
    return decision.withReceipt(issue(check, decision, admittedAt, 0));
  }

  /**
   * {@code decision}, a lease holder's answer to {@code check} from a lease granted at {@code
   * grantedAtNanos} (owner's clock) for {@code leaseNanos}, with its receipt if it admitted.
   */
  Decision ofLeaseAnswer(Check check, Decision decision, long grantedAtNanos, long leaseNanos) {
    if (!admits(check, decision)) {
      return decision;
    }
    return decision.withReceipt(issue(check, decision, grantedAtNanos, Math.max(1, leaseNanos)));
  }

  /**
   * The command that gives back what {@code receipt} proves, once its seal holds here.
   *
   * @throws ReleaseException ({@link ReleaseException.Reason#NOT_ISSUED_HERE}) if it does not
   */
  KeyCommand release(Receipt receipt) {
    if (!backend.issuedHere(receipt)) {
      throw new ReleaseException(
          ReleaseException.Reason.NOT_ISSUED_HERE,
          "receipt: was not issued by this limiter (or its grid), or was altered; nothing was"
              + " freed");
    }
    return KeyCommand.of(
        receipt.ref(),
        receipt.subject(),
        KeyOp.releaseReceipt(
            receipt.permits(), receipt.admittedAtNanos(), receipt.leaseNanos(), receipt.number()));
  }

  /**
   * Whether {@code decision} took {@code check}'s permits: admitted, not a shadow rule's would-be
   * denial (which takes nothing), and for at least one permit.
   */
  private static boolean admits(Check check, Decision decision) {
    return decision.allowed()
        && !decision.shadowDenied()
        && check.permits() > 0
        && decision.receipt() == null;
  }

  private Receipt issue(Check check, Decision decision, long admittedAtNanos, long leaseNanos) {
    long number =
        decision.permitId() != 0 ? decision.permitId() : ThreadLocalRandom.current().nextLong();
    return Receipt.issue(
        check.ref(),
        check.key(),
        check.permits(),
        admittedAtNanos,
        leaseNanos,
        number,
        backend.receiptKey());
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
