package dev.sluice.core.algorithm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Limit;
import dev.sluice.core.test.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Concurrency} on random traces of acquires (some waiting), releases by id of permits held,
 * and time passing (seeded; see {@link Seeds}). Each admission holds its permits from when its
 * caller proceeds ({@code now + delay}) until it releases them or they expire: at no instant are
 * more than {@code limit} held.
 */
@ExtendWith(Seeds.class)
class ConcurrencyPropertiesTest {
  private static final long ORIGIN = 1_763_700_000_000_000_000L;

  /** One admission's permits, held over {@code [from, until)}. */
  private static final class Held {
    final long id;
    final long permits;
    final long from;
    long until;

    Held(long id, long permits, long from, long until) {
      this.id = id;
      this.permits = permits;
      this.from = from;
      this.until = until;
    }
  }

  @Test
  void randomTraces_permitsHeldNeverExceedTheLimit_andIdsAreUnique() {
    Seeds.run(
        "concurrency in flight",
        60,
        seed -> {
          Random random = new Random(seed);
          long limit = 1 + random.nextInt(12);
          long ttl = Duration.ofMillis(1 + random.nextInt(5_000)).toNanos();
          Concurrency algorithm =
              (Concurrency)
                  LimiterAlgorithm.of(
                      Limit.builder()
                          .algorithm(Algorithm.CONCURRENCY)
                          .limit(limit)
                          .window(Duration.ofNanos(ttl))
                          .build(),
                      false);
          long[] state = algorithm.newState();
          List<Held> held = new ArrayList<>();
          long now = ORIGIN;
          for (int step = 0; step < 500; step++) {
            int kind = random.nextInt(100);
            if (kind < 50) {
              long permits = 1 + random.nextInt((int) limit);
              long maxWait = random.nextInt(4) == 0 ? (long) (random.nextDouble() * ttl) : 0;
              Decision decision = Booking.acquire(algorithm, state, now, permits, maxWait);
              if (decision.allowed()) {
                long id = decision.permitId();
                assertThat(held).noneMatch(h -> h.id == id);
                long from = now + decision.delayNanos();
                held.add(new Held(id, permits, from, from + ttl));
              } else {
                assertThat(decision.retryAfterNanos()).isPositive();
              }
            } else if (kind < 75 && !held.isEmpty()) {
              Held one = held.get(random.nextInt(held.size()));
              algorithm.releasePermit(state, now, one.id);
              one.until = Math.max(one.from, Math.min(one.until, now));
            } else {
              now += (long) (random.nextDouble() * ttl / 3);
            }
          }
          assertHeldAtMost(held, limit);
        });
  }

  private static void assertHeldAtMost(List<Held> held, long limit) {
    TreeMap<Long, Long> changes = new TreeMap<>();
    for (Held h : held) {
      if (h.until > h.from) {
        changes.merge(h.from, h.permits, Long::sum);
        changes.merge(h.until, -h.permits, Long::sum);
      }
    }
    long inFlight = 0;
    for (var change : changes.entrySet()) {
      inFlight += change.getValue();
      assertThat(inFlight).as("permits held at %d", change.getKey()).isLessThanOrEqualTo(limit);
    }
  }
}
