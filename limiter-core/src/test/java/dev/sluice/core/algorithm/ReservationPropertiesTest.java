package dev.sluice.core.algorithm;

import static dev.sluice.core.algorithm.Permissiveness.assertNoMorePermissive;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Decision;
import dev.sluice.core.algorithm.AlgorithmPropertiesTest.Request;
import dev.sluice.core.algorithm.Permissiveness.Subject;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.test.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Reserve, then commit, decided by the pipeline's one decide step on every rate algorithm and on
 * sets of limits: a reservation of {@code E} at {@code t0} committed at {@code A <= E} at any later
 * {@code t1} leaves the key no more permissive, at {@code t1} and after, than an acquire of {@code
 * A} at {@code t0} would have: the refund never frees a permit the actual cost still holds (docs/
 * algorithms.md, "Reserve, then commit"). An under-estimate charges more, never less: committed at
 * {@code A > E}, the key is no more permissive than after the estimate alone.
 */
@ExtendWith(Seeds.class)
class ReservationPropertiesTest {
  private static final int CASES = 30;

  @Test
  void commitBelowTheEstimate_isNoMorePermissiveThanAcquiringTheActualCost() {
    for (String kind : Permissiveness.kinds()) {
      Seeds.run(
          "reserve then commit less, " + kind,
          CASES,
          seed -> {
            Random random = new Random(seed);
            Subject subject = Subject.of(Permissiveness.policy(random, kind, random.nextBoolean()));
            CompiledPolicy policy = CompiledPolicy.of(subject.policy());
            long[] state = subject.algorithm().newState();
            long clock = Long.MIN_VALUE; // the trace goes on after the last commit, never before
            for (Request request :
                Permissiveness.randomTrace(random, subject.policy(), subject.capacity(), 120)) {
              long t0 = request.nowNanos();
              if (t0 < clock) {
                continue;
              }
              long estimate = request.permits();
              if (estimate < 1 || random.nextInt(4) != 0) {
                subject.algorithm().apply(state, t0, estimate);
                continue;
              }
              long actual = (long) (random.nextDouble() * (estimate + 1));
              long t1 = t0 + (long) (random.nextDouble() * subject.horizonNanos() / 2);
              long ttl = t1 - t0 + 1 + (long) (random.nextDouble() * subject.horizonNanos());
              String what = subject.policy() + ": reserve " + estimate + " then commit " + actual;

              StoredState reserved =
                  decide(policy, state, t0, KeyOp.reserve(estimate, ttl)).written();
              Decision taken = plainDecision(policy, state, t0, estimate);
              if (!taken.allowed()) {
                subject.algorithm().apply(state, t0, estimate);
                continue;
              }
              assertThat(reserved).as(what).isNotNull();
              long id = ReservationIds.last(reserved);
              KeyDecision.Result committed =
                  KeyDecision.decide(
                      policy,
                      reserved,
                      fp -> null,
                      t1,
                      new KeyOp[] {KeyOp.commit(id, t0 + ttl, actual)});
              assertThat(committed.outcome().decisionOrNull(0)).as(what).isNotNull();
              long[] afterCommit =
                  committed.written() == null ? reserved.values() : committed.written().values();

              long[] reference = state.clone();
              subject.algorithm().apply(reference, t0, actual);
              assertNoMorePermissive(subject, afterCommit.clone(), reference, t1, random, what);

              state = afterCommit.clone(); // go on from the committed key
              clock = t1;
            }
          });
    }
  }

  private static KeyDecision.Result decide(
      CompiledPolicy policy, long[] state, long now, KeyOp op) {
    return KeyDecision.decide(
        policy,
        new StoredState(policy.fingerprint(), state.clone()),
        fp -> null,
        now,
        new KeyOp[] {op});
  }

  private static Decision plainDecision(
      CompiledPolicy policy, long[] state, long now, long permits) {
    return policy.algorithm().apply(state.clone(), now, permits);
  }

  /** The id the decide step gave the reservation it opened last: its ledger's newest entry. */
  private static final class ReservationIds {
    static long last(StoredState state) {
      long[] ledger = state.reservations();
      return ledger[ledger.length - 5];
    }
  }
}
