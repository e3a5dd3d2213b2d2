package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Policy;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LoadDriverTest {

  private static Workload workload(int threads, KeySpace keys) {
    return new Workload(threads, keys, Duration.ZERO, Duration.ofSeconds(30), 1, 1_000_000, false);
  }

  @Test
  void round_countBoundFirst_stopsAtExactlyMaxOps() {
    AtomicLong calls = new AtomicLong();
    Contender counting =
        contender(
            key -> {
              calls.incrementAndGet();
              return Outcome.ALLOWED;
            });

    long startNanos = System.nanoTime();
    RoundResult round =
        LoadDriver.round(
            counting, workload(4, KeySpace.uniform("k", 100)), Duration.ofSeconds(30), 4_000);

    assertThat(round.operations()).isEqualTo(4_000);
    assertThat(calls.get()).isEqualTo(4_000);
    assertThat(((Latency.Recorded) round.latency()).nanos().getTotalCount()).isEqualTo(4_000);
    assertThat(round.count(Outcome.ALLOWED)).isEqualTo(4_000);
    // The count, not the 30 s deadline, ends the round: 4,000 in-memory calls take milliseconds;
    // 20 s is slack for a loaded machine and still well short of the deadline it must not reach.
    assertThat(System.nanoTime() - startNanos).isLessThan(Duration.ofSeconds(20).toNanos());
  }

  @Test
  void round_leadIn_isNeitherCountedNorTimed_butItsAdmissionsAreJudged() {
    AtomicLong calls = new AtomicLong();
    Contender admitsAll =
        contender(
            key -> {
              calls.incrementAndGet();
              return Outcome.ALLOWED;
            });
    // 10 an hour: the measured part's 10 admissions fit; the lead-in's before them do not. (With
    // 10 per 10 s, a run straddling a wall-clock 10 s boundary, 1 in 50, weighed the lead-in's
    // admissions down as a sliding window does across its boundary, and none was over.)
    BenchRule rule = new BenchRule("t", Policy.of(10, Duration.ofHours(1)));
    Contender judged = enforcing(rule, admitsAll::decide);

    RoundResult round =
        LoadDriver.round(
            judged,
            workload(1, KeySpace.hot("h")).countingExactness(),
            Duration.ofMillis(200),
            Duration.ofSeconds(30),
            10);

    assertThat(round.operations()).isEqualTo(10);
    assertThat(round.count(Outcome.ALLOWED)).isEqualTo(10);
    assertThat(((Latency.Recorded) round.latency()).nanos().getTotalCount()).isEqualTo(10);
    assertThat(calls.get()).as("a lead-in of at most 10 calls, then 10").isBetween(11L, 20L);
    assertThat(round.elapsedNanos()).as("timed from the end of the lead-in").isPositive();
    assertThat(round.exactness().overAdmitted())
        .as("the lead-in's admissions are judged")
        .isPositive();
  }

  @Test
  void round_timeBoundFirst_stopsAtTheDeadline() {
    Contender slow =
        contender(
            key -> {
              Thread.sleep(2); // a slow server: the deadline, not the count, ends the round
              return Outcome.DENIED;
            });

    RoundResult round =
        LoadDriver.round(slow, workload(2, KeySpace.hot("h")), Duration.ofMillis(300), 1_000_000);

    // Two threads, 2 ms a call, 300 ms: at most 300 calls (400 with rounding slack), at least one
    // each. The round lasts its 300 ms (a lower bound a clock cannot break), plus the calls in
    // flight at the deadline; 5 s allows for a loaded machine's scheduling many times over.
    assertThat(round.operations()).isBetween(2L, 400L);
    assertThat(round.elapsedNanos())
        .isBetween(Duration.ofMillis(300).toNanos(), Duration.ofSeconds(5).toNanos());
    assertThat(round.count(Outcome.DENIED)).isEqualTo(round.operations());
    assertThat(round.percentileMicros(50)).isGreaterThanOrEqualTo(2_000);
  }

  @Test
  void round_twoContenders_seeTheSameKeySequence() {
    List<String> first = Collections.synchronizedList(new ArrayList<>());
    List<String> second = Collections.synchronizedList(new ArrayList<>());
    KeySpace keys = KeySpace.uniform("k", 10_000);

    LoadDriver.round(recording(first), workload(1, keys), Duration.ofSeconds(30), 500);
    LoadDriver.round(recording(second), workload(1, keys), Duration.ofSeconds(30), 500);

    assertThat(first).hasSize(500).isEqualTo(second);
    assertThat(first.stream().distinct().count()).isGreaterThan(450); // uniform over 10k keys
  }

  @Test
  void round_contenderThrows_countsErrorsAndKeepsTheFirstMessage() {
    AtomicLong calls = new AtomicLong();
    Contender flaky =
        contender(
            key -> {
              if (calls.incrementAndGet() % 2 == 0) {
                throw new IllegalStateException("HTTP 500");
              }
              return Outcome.ALLOWED;
            });

    RoundResult round =
        LoadDriver.round(flaky, workload(1, KeySpace.hot("h")), Duration.ofSeconds(30), 100);

    assertThat(round.count(Outcome.ERROR)).isEqualTo(50);
    assertThat(round.count(Outcome.ALLOWED)).isEqualTo(50);
    assertThat(round.firstError()).isEqualTo("IllegalStateException: HTTP 500");
  }

  @Test
  void run_warmupAndRounds_returnsOnlyTheMeasuredRounds() {
    AtomicLong calls = new AtomicLong();
    Contender counting =
        contender(
            key -> {
              calls.incrementAndGet();
              return Outcome.ALLOWED;
            });
    Workload load =
        new Workload(
            2, KeySpace.hot("h"), Duration.ofSeconds(30), Duration.ofSeconds(30), 3, 200, false);

    List<RoundResult> rounds = LoadDriver.run(counting, load);

    assertThat(rounds).hasSize(3).allSatisfy(r -> assertThat(r.operations()).isEqualTo(200));
    assertThat(calls.get()).isEqualTo(4 * 200); // warm-up + 3 rounds
  }

  @Test
  void round_countingExactness_correctLimiterIsNeverBlamed_andAForgetfulOneIsCounted() {
    // 20 per 200 ms per key on the system clock, 4 threads on 10 Zipf keys for 1 s: Sluice's
    // local limiter keeps its state; the other drops all of it every 70 ms (issue 15's defect,
    // exaggerated), so the hottest keys get a fresh budget several times per window.
    BenchRule rule = new BenchRule("t", Policy.of(20, Duration.ofMillis(200)));
    Workload load =
        new Workload(
                4,
                KeySpace.zipf("z", 10, 1.1),
                Duration.ZERO,
                Duration.ofSeconds(1),
                1,
                5_000_000,
                false)
            .countingExactness();
    Contender exact =
        new SluiceContenders.LimiterContender(
            "exact",
            LocalRateLimiter.builder().rules(List.of(rule.rule())).build(),
            rule,
            () -> {});
    AtomicLong epoch = new AtomicLong();
    AtomicReference<LocalRateLimiter> current =
        new AtomicReference<>(LocalRateLimiter.builder().rules(List.of(rule.rule())).build());
    Contender forgetful =
        enforcing(
            rule,
            key -> {
              long now = System.nanoTime() / 70_000_000L;
              if (epoch.getAndSet(now) != now) {
                current.set(LocalRateLimiter.builder().rules(List.of(rule.rule())).build());
              }
              return current.get().tryAcquire("t", key).allowed()
                  ? Outcome.ALLOWED
                  : Outcome.DENIED;
            });

    RoundResult kept = LoadDriver.round(exact, load, load.roundDuration(), 5_000_000);
    RoundResult forgot = LoadDriver.round(forgetful, load, load.roundDuration(), 5_000_000);

    assertThat(kept.exactness()).isNotNull();
    assertThat(kept.exactness().admitted()).isEqualTo(kept.count(Outcome.ALLOWED)).isPositive();
    assertThat(kept.exactness().overAdmitted()).isZero();
    assertThat(kept.exactness().judgedShare()).isGreaterThan(0.5);
    assertThat(forgot.exactness().overAdmitted()).isPositive();
    assertThat(forgot.exactness().worstKey()).startsWith("z");
  }

  @Test
  void round_notCountingExactness_orNoRule_judgesNothing() {
    Contender admitsAll = contender(key -> Outcome.ALLOWED);

    RoundResult uncounted =
        LoadDriver.round(admitsAll, workload(2, KeySpace.hot("h")), Duration.ofSeconds(30), 1_000);
    RoundResult noRule =
        LoadDriver.round(
            admitsAll,
            workload(2, KeySpace.hot("h")).countingExactness(),
            Duration.ofSeconds(30),
            1_000);

    assertThat(uncounted.exactness()).isNull();
    assertThat(noRule.exactness()).isNull();
  }

  interface Decide {
    Outcome apply(String key) throws Exception;
  }

  static Contender contender(Decide decide) {
    return new Contender() {
      @Override
      public String name() {
        return "test";
      }

      @Override
      public Outcome decide(String key) throws Exception {
        return decide.apply(key);
      }
    };
  }

  /** A contender judged against {@code rule}. */
  static Contender enforcing(BenchRule rule, Decide decide) {
    return new Contender() {
      @Override
      public String name() {
        return "test";
      }

      @Override
      public Optional<Policy> enforced() {
        return Optional.of(rule.policy());
      }

      @Override
      public Outcome decide(String key) throws Exception {
        return decide.apply(key);
      }
    };
  }

  private static Contender recording(List<String> keys) {
    return contender(
        key -> {
          keys.add(key);
          return Outcome.ALLOWED;
        });
  }
}
