package dev.sluice.core.grid.region;

import dev.sluice.core.Decision;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.TimeSource;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bounded load on a rule from callers of both regions: each thread picks a key from a Zipf
 * distribution (s = 1.1) and a limiter of its region, sends, and records every admission with when
 * it was sent and answered on the system clock that home decides with. Stops at the deadline or
 * after {@code maxRequests}, whichever comes first.
 */
final class RegionLoad {
  final Map<String, List<Admission>> admitted = new ConcurrentHashMap<>();
  final Map<String, Map<Decision.DecidedBy, LongAdder>> byRegion = new ConcurrentHashMap<>();
  final Map<String, List<Long>> latencyNanos = new ConcurrentHashMap<>();

  /** Admissions that came with a receipt: a region's answers to a global rule carry none. */
  final LongAdder receipts = new LongAdder();

  final AtomicInteger sent = new AtomicInteger();

  static String key(int i) {
    return "customer-" + i;
  }

  /** Keys 0..keys-1 with probability proportional to 1 / (k + 1)^1.1. */
  static int[] zipfTable(int keys, int size, Random random) {
    double[] weights = new double[keys];
    double total = 0;
    for (int k = 0; k < keys; k++) {
      weights[k] = 1 / Math.pow(k + 1, 1.1);
      total += weights[k];
    }
    int[] table = new int[size];
    int at = 0;
    for (int k = 0; k < keys && at < size; k++) {
      int n = (int) Math.round(weights[k] / total * size);
      for (int j = 0; j < n && at < size; j++) {
        table[at++] = k;
      }
    }
    while (at < size) {
      table[at++] = random.nextInt(keys);
    }
    return table;
  }

  void run(
      String rule,
      Map<String, List<? extends RateLimiter>> regions,
      int threadsPerRegion,
      int keys,
      Duration duration,
      int maxRequests,
      long seed)
      throws InterruptedException {
    long deadline = System.nanoTime() + duration.toNanos();
    List<Thread> threads = new ArrayList<>();
    int n = 0;
    for (Map.Entry<String, List<? extends RateLimiter>> region : regions.entrySet()) {
      Map<Decision.DecidedBy, LongAdder> makers =
          byRegion.computeIfAbsent(region.getKey(), r -> new EnumMap<>(Decision.DecidedBy.class));
      for (Decision.DecidedBy by : Decision.DecidedBy.values()) {
        makers.put(by, new LongAdder());
      }
      List<Long> latencies =
          latencyNanos.computeIfAbsent(
              region.getKey(), r -> java.util.Collections.synchronizedList(new ArrayList<>()));
      for (int t = 0; t < threadsPerRegion; t++) {
        Random random = new Random(seed + n++);
        int[] table = zipfTable(keys, 10_000, random);
        List<? extends RateLimiter> limiters = region.getValue();
        Thread thread =
            new Thread(
                () -> {
                  while (System.nanoTime() - deadline < 0
                      && sent.incrementAndGet() <= maxRequests) {
                    String key = key(table[random.nextInt(table.length)]);
                    RateLimiter limiter = limiters.get(random.nextInt(limiters.size()));
                    long sentAt = TimeSource.system().nowNanos();
                    long started = System.nanoTime();
                    Decision decision;
                    try {
                      decision = limiter.tryAcquire(rule, key);
                    } catch (RuntimeException e) {
                      continue;
                    }
                    latencies.add(System.nanoTime() - started);
                    long answeredAt = TimeSource.system().nowNanos();
                    makers.get(decision.decidedBy()).increment();
                    if (decision.receipt() != null) {
                      receipts.increment();
                    }
                    if (decision.allowed()) {
                      admitted
                          .computeIfAbsent(
                              key, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                          .add(new Admission(sentAt, answeredAt));
                    }
                  }
                },
                "region-load-" + region.getKey() + "-" + t);
        threads.add(thread);
        thread.start();
      }
    }
    for (Thread thread : threads) {
      thread.join();
    }
  }

  long count(String region, Decision.DecidedBy by) {
    return byRegion.get(region).get(by).sum();
  }

  long total(String region) {
    long total = 0;
    for (LongAdder adder : byRegion.get(region).values()) {
      total += adder.sum();
    }
    return total;
  }
}
