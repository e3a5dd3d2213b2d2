package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadDriverTest {

  private static Workload workload(int threads, KeySpace keys) {
    return new Workload(threads, keys, Duration.ZERO, Duration.ofSeconds(30), 1, 1_000_000);
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
    assertThat(round.latencyNanos().getTotalCount()).isEqualTo(4_000);
    assertThat(round.count(Outcome.ALLOWED)).isEqualTo(4_000);
    assertThat(System.nanoTime() - startNanos).isLessThan(Duration.ofSeconds(20).toNanos());
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
        new Workload(2, KeySpace.hot("h"), Duration.ofSeconds(30), Duration.ofSeconds(30), 3, 200);

    List<RoundResult> rounds = LoadDriver.run(counting, load);

    assertThat(rounds).hasSize(3).allSatisfy(r -> assertThat(r.operations()).isEqualTo(200));
    assertThat(calls.get()).isEqualTo(4 * 200); // warm-up + 3 rounds
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

  private static Contender recording(List<String> keys) {
    return contender(
        key -> {
          keys.add(key);
          return Outcome.ALLOWED;
        });
  }
}
