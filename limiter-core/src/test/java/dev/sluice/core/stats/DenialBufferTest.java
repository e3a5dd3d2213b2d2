package dev.sluice.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DenialBufferTest {

  @Test
  void offer_full_dropsAndCountsUntilDrained() {
    DenialBuffer buffer = new DenialBuffer(4);
    for (int i = 0; i < 6; i++) {
      buffer.offer(Check.of("login", "k" + i));
    }
    List<String> drained = new ArrayList<>();

    buffer.drain(check -> drained.add(check.key()));

    assertThat(drained).containsExactly("k0", "k1", "k2", "k3");
    assertThat(buffer.dropped()).isEqualTo(2);
    assertThat(buffer.offer(Check.of("login", "k6"))).isTrue();
  }

  /**
   * Stress: four writers and one drainer at once. Every offered check is either drained exactly
   * once or counted as dropped; none is lost or seen twice.
   */
  @Test
  void offerAndDrain_concurrently_everyCheckDrainedOnceOrDropped() throws InterruptedException {
    DenialBuffer buffer = new DenialBuffer(64);
    int writers = 4;
    int perWriter = 50_000;
    AtomicLong accepted = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(writers);
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < perWriter; i++) {
                    if (buffer.offer(Check.of("r", writer + ":" + i))) {
                      accepted.incrementAndGet();
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  done.countDown();
                }
              });
      thread.start();
      threads.add(thread);
    }
    Set<String> seen = new HashSet<>();
    List<String> duplicates = new ArrayList<>();
    start.countDown();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (done.getCount() > 0 && System.nanoTime() < deadline) {
      buffer.drain(check -> (seen.add(check.key()) ? seen : duplicates).hashCode());
    }
    for (Thread thread : threads) {
      thread.join(10_000);
    }
    buffer.drain(check -> (seen.add(check.key()) ? seen : duplicates).hashCode());

    assertThat(duplicates).isEmpty();
    assertThat((long) seen.size()).isEqualTo(accepted.get());
    assertThat(accepted.get() + buffer.dropped()).isEqualTo((long) writers * perWriter);
    assertThat(buffer.size()).isZero();
  }
}
