package dev.sluice.core.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.test.RateAlgorithms;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Long traces of one key under leases: a holder asks for every kind of lease, answers from it,
 * replaces it, lets it end and gives it back late, while time moves in steps from a sliver of a
 * bucket to a whole window. {@code LeaseGrantPropertiesTest} follows one grant closely; this one
 * follows hundreds, so that grants, answers and late returns of different leases meet in the same
 * windows and buckets. What it caught that the single grant did not (each tried by breaking the
 * code): a lease given back with a plain release, off the newest bucket or window instead of its
 * own, on sliding_buckets, fixed_window and sliding_window, and a token bucket or GCRA return that
 * freed the debt of a lease ending later than it did; each fails within the first cases here.
 * (Freeing an earlier bucket than the lease's only moves counts later, which is stricter.)
 *
 * <p>The judge is the owner alone deciding, at its instant, every request the leased system
 * admitted (at the owner or from a lease), and nothing else: it must admit each one. That is "a
 * lease never admits more than the owner alone would have" on the history the leased system made.
 * An independent limiter that sees every request is not a judge: once a lease's parked permits make
 * the leased key deny a request that limiter admits, the two have admitted different requests, and
 * later the leased key may rightly admit one that the other, having spent a permit more, denies
 * (the first test, in numbers).
 */
@ExtendWith(Seeds.class)
class LeaseTracePropertiesTest {
  private static final long ORIGIN = 1_763_700_000_000_000_000L;
  private static final int CASES = 120;
  private static final int REQUESTS = 300;

  /**
   * 8 per 60 s in 6 buckets of 10 s. A lease to the end of bucket 0 is never used and ends there;
   * bucket 0 then counts it until it leaves the window, at 70 s.
   *
   * <pre>
   *   t      request   leased key (lease of 1)     every request at the owner   judge
   *   1 s    1         allowed, bucket 0 holds 2   allowed, bucket 0 holds 1    allowed
   *   25 s   6         allowed, sum 8              allowed, sum 7               allowed
   *   35 s   1         denied (sum 8)              allowed, sum 8               -
   *   70 s   2         allowed: bucket 0 left, 6   denied: 6 + 1 + 2 > 8        allowed: 6 + 2
   * </pre>
   */
  @Test
  void
      slidingBuckets_unusedLeaseDeniesARequestTheOwnerAloneAdmits_soALaterOneIsAdmittedWithinTheLimit() {
    CompiledPolicy policy =
        CompiledPolicy.of(
            Policy.builder()
                .algorithm(Algorithm.SLIDING_BUCKETS)
                .limit(8)
                .window(Duration.ofSeconds(60))
                .buckets(6)
                .build());
    Key leased = new Key(policy);
    Key everyRequest = new Key(policy);
    Key judge = new Key(policy);

    KeyOutcome grant =
        leased.decide(at(1), KeyOp.acquireWithLease(1, 10, LeaseAsk.UNTIL_WINDOW_END));
    assertThat(grant.decision(0).allowed()).isTrue();
    assertThat(grant.leased(0)).isEqualTo(1); // a quarter of the 7 left
    assertThat(grant.leaseEndsAtNanos(0)).isEqualTo(at(10));
    assertThat(everyRequest.acquire(at(1), 1)).isTrue();
    assertThat(judge.acquire(at(1), 1)).isTrue();

    assertThat(leased.acquire(at(25), 6)).isTrue();
    assertThat(everyRequest.acquire(at(25), 6)).isTrue();
    assertThat(judge.acquire(at(25), 6)).isTrue();

    assertThat(leased.acquire(at(35), 1)).as("stricter: the lease's permit still counts").isFalse();
    assertThat(everyRequest.acquire(at(35), 1)).isTrue();

    assertThat(leased.acquire(at(70), 2)).isTrue();
    assertThat(everyRequest.acquire(at(70), 2))
        .as("it spent at 35 s the permit the leased key kept")
        .isFalse();
    assertThat(judge.acquire(at(70), 2))
        .as("the owner alone, on the leased key's history")
        .isTrue();
  }

  @Test
  void everyAlgorithm_tracesOfLeases_admitNothingTheOwnerAloneDeniesOnTheSameHistory() {
    long[] localAnswers = new long[1];
    for (Algorithm algorithm : RateAlgorithms.values()) {
      Seeds.run(
          algorithm.wireName(),
          CASES,
          seed -> {
            Random random = new Random(seed);
            localAnswers[0] +=
                new Trace(random, LeaseGrantPropertiesTest.policy(random, algorithm)).run();
          });
    }
    assertThat(localAnswers[0]).as("requests answered from leases").isGreaterThan(10_000);
  }

  private static long at(long seconds) {
    return ORIGIN - Math.floorMod(ORIGIN, 60_000_000_000L) + seconds * 1_000_000_000L;
  }

  /** One key's stored state, decided on as an owner does. */
  private static final class Key {
    final CompiledPolicy policy;
    @Nullable StoredState state;

    Key(CompiledPolicy policy) {
      this.policy = policy;
    }

    KeyOutcome decide(long now, KeyOp op) {
      KeyDecision.Result result =
          KeyDecision.decide(policy, state, fingerprint -> null, now, new KeyOp[] {op});
      if (result.written() != null) {
        state = result.written();
      }
      return result.outcome();
    }

    boolean acquire(long now, long permits) {
      return decide(now, KeyOp.acquire(permits)).decision(0).allowed();
    }
  }

  /** A lease as its holder keeps it, on the holder's clock. */
  private static final class HeldLease {
    final long grantedAtNanos;
    final long lengthNanos;
    final long endsAtNanos;
    final boolean toWindowEnd;
    final long permits;
    final long firstUsableAtNanos;
    final long spacingNanos;
    long left;

    HeldLease(KeyOp asked, KeyOutcome outcome, long sentAtNanos, long arrivedAtNanos) {
      this.grantedAtNanos = outcome.decidedAtNanos();
      this.lengthNanos = outcome.leaseEndsAtNanos(0) - grantedAtNanos;
      this.endsAtNanos = sentAtNanos + lengthNanos;
      this.toWindowEnd =
          asked.leaseNanos() == LeaseAsk.UNTIL_WINDOW_END || outcome.leaseToWindowEnd(0);
      this.permits = outcome.leased(0);
      this.left = permits;
      PacedLease paced = outcome.pacedLease(0);
      this.firstUsableAtNanos =
          paced == null ? arrivedAtNanos : arrivedAtNanos + paced.firstAtNanos() - grantedAtNanos;
      this.spacingNanos = paced == null ? 0 : paced.spacingNanos();
    }

    long usableAt(long n) {
      return firstUsableAtNanos + (n - 1) * spacingNanos;
    }
  }

  /** A return on its way to the owner: sent by a sweep, decided when it arrives. */
  private record Return(long arrivesAtNanos, HeldLease lease, long unused) {}

  /** One trace: a holder, the owner of its key, and the judge. */
  private static final class Trace {
    final Random random;
    final Policy shape;
    final Key owner;
    final Key judge;
    final long capacity;
    final long meanGapNanos;
    final List<Return> returns = new ArrayList<>();
    long ownerNow = Long.MIN_VALUE;

    Trace(Random random, Policy shape) {
      this.random = random;
      this.shape = shape;
      CompiledPolicy policy = CompiledPolicy.of(shape);
      this.owner = new Key(policy);
      this.judge = new Key(policy);
      this.capacity = policy.capacity();
      // From many requests a bucket to one a window: leases get used, and outlive their buckets.
      long[] perWindow = {2_000, 200, 60, 8, 1};
      this.meanGapNanos = Math.max(1, shape.windowNanos() / perWindow[random.nextInt(5)]);
    }

    /** Runs the trace; returns the requests answered from leases. */
    long run() {
      long now = ORIGIN + (long) (random.nextDouble() * shape.windowNanos());
      HeldLease lease = null;
      long answeredLocally = 0;
      for (int i = 0; i < REQUESTS; i++) {
        now += (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
        long permits = 1 + random.nextInt((int) Math.min(capacity, 3));
        if (lease != null && now - lease.endsAtNanos >= 0) {
          retire(lease, now);
          lease = null;
        }
        if (lease != null && lease.left >= permits) {
          long usableAt = lease.usableAt(lease.permits - lease.left + permits);
          if (usableAt - lease.endsAtNanos < 0) {
            if (now - usableAt >= 0) {
              lease.left -= permits;
              answeredLocally++;
              judged(now, permits, "answered from a lease granted at", lease.grantedAtNanos);
            }
            continue; // answered here: admitted, or denied until the permits are usable
          }
        }
        // To the owner, a round trip away: returns the sweeps sent land first.
        long latency = random.nextInt(3) == 0 ? 0 : (long) (random.nextDouble() * meanGapNanos / 4);
        long decidedAt = now + latency;
        deliverReturns(decidedAt);
        KeyOp asked = ask(permits);
        KeyOutcome outcome = ownerDecides(decidedAt, asked);
        if (outcome.decision(0).allowed()) {
          judged(decidedAt, permits, "admitted by the owner at", decidedAt);
        }
        long arrivedAt = decidedAt + latency;
        if (outcome.leased(0) > 0) {
          if (lease != null) {
            retire(lease, arrivedAt); // replaced: what is left goes back with the next sweep
          }
          lease = new HeldLease(asked, outcome, now, arrivedAt);
        }
        now = arrivedAt;
      }
      return answeredLocally;
    }

    /** The ask a holder sends with a request: every kind, or none. */
    private KeyOp ask(long permits) {
      long wanted = 1 + random.nextInt(random.nextBoolean() ? 8 : 2_000);
      long lifetime =
          switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> 1 + (long) (random.nextDouble() * Policy.MAX_LEASE_NANOS);
            case 2 -> LeaseAsk.UNTIL_WINDOW_END;
            case 3 -> LeaseAsk.SHORT_OR_PACED;
            default -> LeaseAsk.WINDOW_SHORT_OR_PACED;
          };
      return lifetime == 0
          ? KeyOp.acquire(permits)
          : KeyOp.acquireWithLease(permits, wanted, lifetime);
    }

    /**
     * A lease the holder is done with at {@code at}: its unused permits go back with a sweep a
     * little later, which skips a lease to the end of its window that has ended by then.
     */
    private void retire(HeldLease lease, long at) {
      long sweptAt = at + (long) (random.nextDouble() * Math.min(meanGapNanos, 50_000_000L));
      if (lease.left == 0 || (lease.toWindowEnd && sweptAt - lease.endsAtNanos >= 0)) {
        return;
      }
      long latency = (long) (random.nextDouble() * meanGapNanos / 4);
      returns.add(new Return(sweptAt + latency, lease, lease.left));
      lease.left = 0;
    }

    private void deliverReturns(long until) {
      returns.sort(Comparator.comparingLong(Return::arrivesAtNanos));
      while (!returns.isEmpty() && returns.get(0).arrivesAtNanos() - until <= 0) {
        Return back = returns.remove(0);
        HeldLease lease = back.lease();
        ownerDecides(
            back.arrivesAtNanos(),
            KeyOp.returnLease(back.unused(), lease.grantedAtNanos, lease.lengthNanos));
      }
    }

    /** The owner's clock never steps back: a late arrival is decided at the owner's now. */
    private KeyOutcome ownerDecides(long at, KeyOp op) {
      ownerNow = Math.max(ownerNow, at);
      return owner.decide(ownerNow, op);
    }

    private void judged(long at, long permits, String how, long grantedAt) {
      Decision alone = judge.decide(at, KeyOp.acquire(permits)).decision(0);
      assertThat(alone.allowed())
          .as(
              "%s: %d permits %s %d ns, at %d ns into the trace; the owner alone denies them",
              shape, permits, how, grantedAt - ORIGIN, at - ORIGIN)
          .isTrue();
    }
  }
}
