package dev.sluice.core.backend;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.StateKey;
import dev.sluice.core.algorithm.NanoMath;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
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
public final class AdmissionReceipts {
  private final Backend backend;

  public AdmissionReceipts(Backend backend) {
    this.backend = backend;
  }

  /**
   * Result {@code index} of {@code outcome}, the owner's answer to {@code check}, with its receipt
   * if it admitted permits that can be given back here: not one marked {@link KeyOutcome#noReceipt}
   * (a global rule's answer in a region, released only at home).
   */
  public Decision ofOwnerAnswer(Check check, KeyOutcome outcome, int index) {
    Decision decision = outcome.decision(index);
    if (decision.decidedBy() != Decision.DecidedBy.LIMITER
        || !admits(check.permits(), decision)
        || outcome.noReceipt(index)) {
      return decision; // a lease's answer carries its own; a failure policy's took nothing
    }
    long admittedAt = NanoMath.saturatedAdd(outcome.decidedAtNanos(), decision.delayNanos());
    return decision.withReceipt(
        issue(check.ref(), check.key(), check.permits(), decision, admittedAt, 0));
  }

  /**
   * {@code decision}, a lease holder's answer to a request for {@code permits} on {@code stateKey}
   * under {@code ref}, from a lease granted at {@code grantedAtNanos} (owner's clock) for {@code
   * leaseNanos}, with its receipt if it admitted.
   */
  public Decision ofLeaseAnswer(
      PolicyRef ref,
      String stateKey,
      long permits,
      Decision decision,
      long grantedAtNanos,
      long leaseNanos) {
    if (!admits(permits, decision)) {
      return decision;
    }
    Receipt receipt =
        issue(
            ref,
            StateKey.subjectOf(stateKey),
            permits,
            decision,
            grantedAtNanos,
            Math.max(1, leaseNanos));
    return decision.withReceipt(receipt);
  }

  /**
   * The command that gives back what {@code receipt} proves, once its seal holds here.
   *
   * @throws ReleaseException ({@link ReleaseException.Reason#NOT_ISSUED_HERE}) if it does not
   */
  public KeyCommand release(Receipt receipt) {
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
   * Whether {@code decision} took {@code permits}: admitted, not a shadow rule's would-be denial
   * (which takes nothing), for at least one permit, and with no receipt yet.
   */
  private static boolean admits(long permits, Decision decision) {
    return decision.allowed()
        && !decision.shadowDenied()
        && permits > 0
        && decision.receipt() == null;
  }

  private Receipt issue(
      PolicyRef ref,
      String subject,
      long permits,
      Decision decision,
      long admittedAtNanos,
      long leaseNanos) {
    long number =
        decision.permitId() != 0 ? decision.permitId() : ThreadLocalRandom.current().nextLong();
    return Receipt.issue(
        ref, subject, permits, admittedAtNanos, leaseNanos, number, backend.receiptKey());
  }
}
