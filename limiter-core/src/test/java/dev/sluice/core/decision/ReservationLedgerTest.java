package dev.sluice.core.decision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.ReservationException;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The reservation ledger as the decide step keeps it: ids, the bound, expiry, and that a state is
 * kept as long as a reservation in it can still be committed.
 */
class ReservationLedgerTest {
  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final long T0 = 1_767_225_600L * SECOND; // 2026-01-01, epoch-aligned
  private static final CompiledPolicy PER_SECOND =
      CompiledPolicy.of(
          new Policy(
              List.of(
                  Limit.builder()
                      .algorithm(Algorithm.FIXED_WINDOW)
                      .limit(5_000)
                      .window(Duration.ofSeconds(1))
                      .build()),
              false,
              false));

  private @Nullable StoredState state;

  private KeyOutcome run(long now, KeyOp op) {
    KeyDecision.Result result =
        KeyDecision.decide(PER_SECOND, state, fp -> null, now, new KeyOp[] {op});
    if (result.written() != null) {
      state = result.written();
    }
    return result.outcome();
  }

  private long reserve(long now, long estimate, long ttl) {
    Decision decision = run(now, KeyOp.reserve(estimate, ttl)).decision(0);
    assertThat(decision.allowed()).isTrue();
    return decision.permitId();
  }

  @Test
  void ids_startFromTheClock_andIncreaseOnAKey() {
    long a = reserve(T0, 1, SECOND);
    long b = reserve(T0, 1, SECOND);
    long c = reserve(T0 + 5, 1, SECOND);
    assertThat(a).isEqualTo(T0);
    assertThat(b).isEqualTo(T0 + 1);
    assertThat(c).isEqualTo(T0 + 5);
  }

  /**
   * The fixed window's own state is fresh after 1 s, but a reservation open for a minute keeps it:
   * forgetting it sooner would answer the commit "unknown" and skip its charge.
   */
  @Test
  void state_isKeptUntilItsLastReservationExpires() {
    KeyDecision.Result result =
        KeyDecision.decide(
            PER_SECOND, null, fp -> null, T0, new KeyOp[] {KeyOp.reserve(3, 60 * SECOND)});
    assertThat(result.untilFreshNanos()).isEqualTo(60 * SECOND);
    assertThat(ReservationLedger.size(result.written().reservations())).isEqualTo(1);
  }

  /** An expired reservation leaves the ledger at the next write, and its id says it expired. */
  @Test
  void expiredReservation_isPurged_andItsCommitRefusedAsExpired() {
    long id = reserve(T0, 4, SECOND);
    reserve(T0 + 2 * SECOND, 1, SECOND);
    assertThat(ReservationLedger.size(state.reservations())).isEqualTo(1);

    KeyOutcome late = run(T0 + 2 * SECOND, KeyOp.commit(id, T0 + SECOND, 0));
    assertThat(late.code(0)).isEqualTo(KeyOutcome.Code.RESERVATION);
    assertThat(late.subject(0)).isEqualTo(ReservationException.Reason.EXPIRED.name());
  }

  /** A commit refused for any reason writes nothing. */
  @Test
  void refusedCommit_writesNothing() {
    long id = reserve(T0, 4, 10 * SECOND);
    assertThat(run(T0, KeyOp.commit(id, T0 + 10 * SECOND, 1)).code(0))
        .isEqualTo(KeyOutcome.Code.OK);
    StoredState before = state;
    KeyDecision.Result again =
        KeyDecision.decide(
            PER_SECOND, state, fp -> null, T0, new KeyOp[] {KeyOp.commit(id, T0 + 10 * SECOND, 0)});
    assertThat(again.outcome().subject(0)).isEqualTo(ReservationException.Reason.COMMITTED.name());
    assertThat(again.written()).isNull();
    assertThat(state).isEqualTo(before);
  }

  /**
   * At most 1,024 reservations per key: a full ledger makes room by dropping the committed one that
   * expires first; a ledger full of open ones refuses another reservation and counts nothing.
   */
  @Test
  void ledger_isBounded() {
    long firstCommitted = reserve(T0, 1, 10 * SECOND);
    run(T0, KeyOp.commit(firstCommitted, T0 + 10 * SECOND, 1));
    for (int i = 1; i < ReservationLedger.MAX_ENTRIES; i++) {
      reserve(T0, 1, 20 * SECOND);
    }
    assertThat(ReservationLedger.size(state.reservations()))
        .isEqualTo(ReservationLedger.MAX_ENTRIES);

    reserve(T0, 1, 20 * SECOND); // drops the committed one
    assertThat(ReservationLedger.find(state.reservations(), firstCommitted)).isNegative();
    assertThat(run(T0, KeyOp.commit(firstCommitted, T0 + 10 * SECOND, 0)).subject(0))
        .isEqualTo(ReservationException.Reason.UNKNOWN.name());

    StoredState full = state;
    KeyOutcome refused = run(T0, KeyOp.reserve(1, SECOND));
    assertThat(refused.code(0)).isEqualTo(KeyOutcome.Code.INVALID);
    assertThat(refused.message(0)).contains("1024 open reservations");
    assertThat(state).isEqualTo(full);
  }

  /**
   * A refund is the exact undo of the estimate's admission: committed in a later window, it frees
   * nothing there (the estimate was counted in a window that has passed), so the permits others
   * took in this window stay counted.
   */
  @Test
  void refund_inALaterWindow_freesNothingOthersHold() {
    CompiledPolicy tenPerSecond =
        CompiledPolicy.of(
            Policy.builder()
                .algorithm(Algorithm.FIXED_WINDOW)
                .limit(10)
                .window(Duration.ofSeconds(1))
                .build());
    StoredState stored =
        KeyDecision.decide(
                tenPerSecond, null, fp -> null, T0, new KeyOp[] {KeyOp.reserve(6, 60 * SECOND)})
            .written();
    long id = T0;
    KeyDecision.Result full =
        KeyDecision.decide(
            tenPerSecond, stored, fp -> null, T0 + SECOND, new KeyOp[] {KeyOp.acquire(10)});
    assertThat(full.outcome().decision(0).allowed()).isTrue();
    KeyDecision.Result committed =
        KeyDecision.decide(
            tenPerSecond,
            full.written(),
            fp -> null,
            T0 + SECOND + SECOND / 2,
            new KeyOp[] {KeyOp.commit(id, T0 + 60 * SECOND, 0), KeyOp.acquire(1)});
    assertThat(committed.outcome().decision(0).remaining()).isZero();
    assertThat(committed.outcome().decision(1).allowed()).isFalse();
  }
}
