package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Concurrent calls on one hot key through a limiter 200 µs away. */
class CoalescingTest {
  private final ManualTimeSource time = ManualTimeSource.at(Instant.parse("2026-01-01T00:00:00Z"));
  private final ScheduledExecutorService network = Executors.newScheduledThreadPool(2);
  private final ExecutorService callers = Executors.newFixedThreadPool(16);

  @AfterEach
  void stop() {
    network.shutdownNow();
    callers.shutdownNow();
  }

  @Test
  void tryAcquire_sixteenThreadsOnOneKey_admitExactlyTheLimitInFewerInvocations() throws Exception {
    ReferenceLimiter reference =
        new ReferenceLimiter(time).withRule("hot", Policy.of(1_000, Duration.ofMinutes(1)));
    SluiceClient client =
        SluiceClient.builder()
            .deniedCacheSize(0) // every call must reach the coalescer
            .callTimeout(Duration.ofSeconds(5))
            .wrap(new LaggingLimiter(reference, network, 200));
    int threads = 16;
    int callsPerThread = 150; // 2,400 calls for 1,000 permits: the time is frozen
    AtomicInteger admitted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      done.add(
          callers.submit(
              () -> {
                start.await();
                for (int i = 0; i < callsPerThread; i++) {
                  Decision d = client.tryAcquire("hot", "key");
                  if (d.allowed()) {
                    admitted.incrementAndGet();
                  }
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    // Serial calls would admit exactly 1,000: coalesced ones admit no more and no fewer.
    assertThat(admitted.get()).isEqualTo(1_000);
    assertThat(reference.peek("hot", "key").remaining()).isZero();
    System.out.println(
        "coalescing: "
            + threads * callsPerThread
            + " calls in "
            + reference.invocations.get()
            + " invocations");
    assertThat(reference.invocations.get()).isLessThan(threads * callsPerThread / 2);
  }

  @Test
  void tryAcquireAsync_manyCallsOnOneKey_admitExactlyTheLimit() {
    ReferenceLimiter reference =
        new ReferenceLimiter(time).withRule("hot", Policy.of(100, Duration.ofMinutes(1)));
    SluiceClient client =
        SluiceClient.builder()
            .deniedCacheSize(0)
            .callTimeout(Duration.ofSeconds(5))
            .wrap(new LaggingLimiter(reference, network, 200));
    List<CompletableFuture<Decision>> answers = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      answers.add(client.tryAcquireAsync("hot", "key", 1).toCompletableFuture());
    }
    long admitted = answers.stream().filter(f -> f.join().allowed()).count();
    assertThat(admitted).isEqualTo(100);
    assertThat(reference.invocations.get()).isLessThan(500);
  }

  @Test
  void tryAcquire_badRequestCoalescedWithGoodOnes_failsAlone() throws Exception {
    ReferenceLimiter reference =
        new ReferenceLimiter(time).withRule("hot", Policy.of(10, Duration.ofMinutes(1)));
    SluiceClient client =
        SluiceClient.builder()
            .deniedCacheSize(0)
            .callTimeout(Duration.ofSeconds(5))
            .wrap(new LaggingLimiter(reference, network, 2_000));
    // The first call is in flight for 2 ms; the next three queue behind it as one batch.
    CompletableFuture<Decision> first =
        client.tryAcquireAsync("hot", "key", 1).toCompletableFuture();
    CompletableFuture<Decision> good =
        client.tryAcquireAsync("hot", "key", 2).toCompletableFuture();
    CompletableFuture<Decision> bad =
        client.tryAcquireAsync("hot", "key", 11).toCompletableFuture();
    CompletableFuture<Decision> alsoGood =
        client.tryAcquireAsync("hot", "key", 3).toCompletableFuture();
    assertThat(first.get(5, TimeUnit.SECONDS).allowed()).isTrue();
    assertThat(good.get(5, TimeUnit.SECONDS).remaining()).isEqualTo(7);
    assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(InvalidPolicyException.class);
    assertThat(alsoGood.get(5, TimeUnit.SECONDS).remaining()).isEqualTo(4);
  }
}
