package dev.sluice.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The holder's sweep ({@link LeaseHolder#takeReturns}) on a manual clock, with the owner's answers
 * made by hand: a short lease goes back at the first sweep after its end, while leases to the end
 * of the window, of which a holder may hold one for every key it asked in a window of a second, are
 * looked at by every {@value LeaseHolder#FULL_SWEEP_EVERY}th sweep only.
 */
class LeaseSweepTest {
  private static final long LIMIT = 1_000_000;

  private final ManualTimeSource clock = new ManualTimeSource(0);
  private final RecordingTransport transport = new RecordingTransport(clock);
  private final LeaseHolder holder =
      new LeaseHolder(clock::nowNanos, LeasePolicy.DEFAULT, transport, null);

  @AfterEach
  void nothingWasRenewedAhead() {
    assertThat(transport.renewals).isEmpty();
  }

  @Test
  void shortLease_goesBackAtTheFirstSweepAfterItsEnd_windowLeasesAtEveryTenthSweep() {
    assertThat(holder.takeReturns(false)).as("sweep 0 looks at every lease: none yet").isEmpty();
    Check hot = Check.of("r", "hot", 1);
    Check quiet = Check.of("r", "quiet", 1);
    keep(hot, KeyOp.acquireWithLease(1, 10, LeaseAsk.SHORT_OR_PACED), 10, 100);
    keep(quiet, KeyOp.acquireWithLease(1, 2, LeaseAsk.UNTIL_WINDOW_END), 2, 50);
    clock.advance(Duration.ofMillis(200)); // both have ended

    List<KeyCommand> first = holder.takeReturns(false);
    assertThat(first).extracting(KeyCommand::stateKey).containsExactly(hot.stateKey());
    assertThat(first.get(0).ops()).extracting(KeyOp::permits).containsExactly(10L);
    assertThat(holder.statistics().leasesHeld()).as("quiet, not looked at by sweep 1").isOne();

    for (int sweep = 2; sweep < LeaseHolder.FULL_SWEEP_EVERY; sweep++) {
      assertThat(holder.takeReturns(false)).as("sweep %d", sweep).isEmpty();
      assertThat(holder.statistics().leasesHeld()).as("quiet, sweep %d", sweep).isOne();
    }
    // The tenth looks at every lease: the ended lease to the end of its window is taken out, and
    // not sent back (the owner would free nothing).
    assertThat(holder.takeReturns(false)).isEmpty();
    assertThat(holder.statistics().leasesHeld()).isZero();
    assertThat(holder.statistics().expiredUnused()).isEqualTo(2);
    assertThat(holder.statistics().returned()).isEqualTo(10);
  }

  @Test
  void keyWhoseShortLeaseIsReplacedByALeaseToTheWindowEnd_leavesTheShortSweeps() {
    Check check = Check.of("r", "warm", 1);
    keep(check, KeyOp.acquireWithLease(1, 4, LeaseAsk.SHORT_OR_PACED), 4, 100);
    for (int i = 0; i < 4; i++) {
      Decision decision = holder.answer(check.ref(), check.stateKey(), check.permits());
      assertThat(decision).isNotNull();
      assertThat(decision.decidedBy()).isEqualTo(DecidedBy.LEASE);
    }
    // Spent: the next grant, to the end of the window, replaces it (nothing left to give back).
    keep(check, KeyOp.acquireWithLease(1, 30, LeaseAsk.UNTIL_WINDOW_END), 30, 900);
    clock.advance(Duration.ofMillis(200));
    for (int sweep = 0; sweep < LeaseHolder.FULL_SWEEP_EVERY; sweep++) {
      assertThat(holder.takeReturns(false)).as("sweep %d", sweep).isEmpty();
    }
    // Still held (its window has not ended) and answering: no sweep gave it back.
    assertThat(holder.answer(check.ref(), check.stateKey(), check.permits())).isNotNull();
  }

  /** Keeps the owner's answer to {@code asked}: a lease of {@code permits} ending in {@code ms}. */
  private void keep(Check check, KeyOp asked, long permits, long ms) {
    long now = clock.nowNanos();
    KeyOutcome outcome = new KeyOutcome(1, now);
    outcome.setDecision(
        0, new Decision(true, LIMIT, LIMIT - 1_000, 0, 0, 0, false, DecidedBy.LIMITER));
    outcome.setLease(0, permits, now + Duration.ofMillis(ms).toNanos());
    holder.keep(check.ref(), check.stateKey(), asked, outcome, 0, now);
  }
}
