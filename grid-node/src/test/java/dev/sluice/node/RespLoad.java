package dev.sluice.node;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Policy;
import dev.sluice.core.TimeSource;
import dev.sluice.core.contract.AdmissionBounds;
import dev.sluice.core.contract.AdmissionBounds.Admission;
import dev.sluice.node.resp.RespWire;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * Load on the Redis port for the real-clock tests: threads send {@code CL.THROTTLE key max_burst
 * count period} on raw connections (one at a time, or pipelined), moving on to the next node when
 * one stops answering, and record every admission's sent and answered instants on the system clock
 * the nodes decide with, to be judged by {@link AdmissionBounds}. Bounded in time and in calls.
 */
final class RespLoad implements AutoCloseable {
  private static final int MAX_CALLS_PER_THREAD = 1_000_000;

  private final List<IntSupplier> ports;
  private final List<String> keys;
  private final long maxBurst;
  private final long perPeriod;
  private final long periodSeconds;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Map<String, ConcurrentLinkedQueue<Admission>> admitted = new ConcurrentHashMap<>();
  private final AtomicLong calls = new AtomicLong();
  private final AtomicLong denied = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();

  /**
   * @param ports each node's Redis port, read again after a failure (a node may have moved)
   */
  RespLoad(
      List<IntSupplier> ports,
      List<String> keys,
      long maxBurst,
      long perPeriod,
      long periodSeconds) {
    this.ports = ports;
    this.keys = keys;
    this.maxBurst = maxBurst;
    this.perPeriod = perPeriod;
    this.periodSeconds = periodSeconds;
    keys.forEach(key -> admitted.put(key, new ConcurrentLinkedQueue<>()));
  }

  /** The policy the calls run under, for the judge. */
  Policy policy() {
    return Policy.builder()
        .algorithm(Algorithm.GCRA)
        .limit(perPeriod)
        .window(Duration.ofSeconds(periodSeconds))
        .burst(maxBurst)
        .build();
  }

  /**
   * Starts {@code count} threads, for at most {@code duration}.
   *
   * @param depth commands each sends before reading their replies: 1 is one at a time
   */
  RespLoad start(int count, int depth, Duration duration) {
    long deadline = System.nanoTime() + duration.toNanos();
    for (int t = 0; t < count; t++) {
      int first = threads.size();
      Thread thread = new Thread(() -> run(first, depth, deadline), "resp-load-" + first);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    return this;
  }

  private void run(int first, int depth, long deadline) {
    TimeSource clock = TimeSource.system();
    int node = first % ports.size();
    int key = first % keys.size();
    RespWire wire = null;
    for (int i = 0; i < MAX_CALLS_PER_THREAD && !stop.get() && System.nanoTime() < deadline; ) {
      try {
        if (wire == null) {
          wire = new RespWire(ports.get(node).getAsInt(), 5_000);
        }
        String target = keys.get(key);
        key = (key + 1) % keys.size();
        StringBuilder frames = new StringBuilder();
        for (int d = 0; d < depth; d++) {
          frames.append(
              RespWire.encode(
                  "CL.THROTTLE",
                  target,
                  Long.toString(maxBurst),
                  Long.toString(perPeriod),
                  Long.toString(periodSeconds)));
        }
        long sent = clock.nowNanos();
        wire.send(frames.toString());
        List<Boolean> allowed = new ArrayList<>(depth);
        for (int d = 0; d < depth; d++) {
          Object reply = wire.read();
          allowed.add(reply instanceof List<?> list && Long.valueOf(0).equals(list.get(0)));
        }
        long answered = clock.nowNanos();
        for (boolean yes : allowed) {
          if (yes) {
            admitted.get(target).add(new Admission(sent, answered));
          } else {
            denied.incrementAndGet();
          }
        }
        calls.addAndGet(depth);
        i += depth;
      } catch (RuntimeException e) {
        // The node went away (killed): what it had answered is recorded; try the next node.
        failures.incrementAndGet();
        if (wire != null) {
          wire.close();
          wire = null;
        }
        node = (node + 1) % ports.size();
      }
    }
    if (wire != null) {
      wire.close();
    }
  }

  /** Waits for the threads to reach their deadline. */
  RespLoad await() throws InterruptedException {
    for (Thread thread : threads) {
      thread.join();
    }
    return this;
  }

  /** Each key's first violation of its bound, if any. */
  List<String> violations() {
    List<String> violations = new ArrayList<>();
    admitted.forEach(
        (key, admissions) -> {
          Optional<String> violation =
              AdmissionBounds.violation(policy(), new ArrayList<>(admissions));
          violation.ifPresent(v -> violations.add(key + ": " + v));
        });
    return violations;
  }

  long admitted() {
    return admitted.values().stream().mapToLong(ConcurrentLinkedQueue::size).sum();
  }

  long denied() {
    return denied.get();
  }

  long calls() {
    return calls.get();
  }

  long failures() {
    return failures.get();
  }

  /** Stops the threads and waits for them (at most a few seconds each: calls time out). */
  @Override
  public void close() {
    stop.set(true);
    try {
      await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
