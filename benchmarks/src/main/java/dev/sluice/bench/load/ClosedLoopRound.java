package dev.sluice.bench.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * One measured round of the probes' closed loop: every thread calls again as soon as it has its
 * answer, keys drawn from its own {@link SplittableRandom} (seed 5315813 + thread, the same
 * sequence for every target). The threads run for a second before the round is measured, so
 * connections are open and the threads have settled, and the CPU time of this JVM and of one server
 * process is read around the measured part.
 *
 * <p>A failed call is counted, not thrown: the probe decides whether failures void its round.
 */
public final class ClosedLoopRound {
  private static final long SETTLE_MILLIS = 1_000;
  private static final long JOIN_MILLIS = 30_000;

  /** One call; returns how many decisions it made (a batch makes several). */
  @FunctionalInterface
  public interface Call {
    int decide(SplittableRandom random) throws Exception;
  }

  /**
   * What a round measured: decisions per second, CPU per decision in this JVM and in the server,
   * and the calls that threw (during the whole round, settling included).
   */
  public record Result(
      double perSecond, double ownCpuMicros, double serverCpuMicros, long failedCalls) {}

  private ClosedLoopRound() {}

  public static Result run(int threads, Duration round, long serverPid, Call call)
      throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean measuring = new AtomicBoolean();
    LongAdder decisions = new LongAdder();
    LongAdder failures = new LongAdder();
    List<Thread> running = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      SplittableRandom random = new SplittableRandom(5315813 + t);
      Thread thread =
          new Thread(
              () -> {
                while (!stop.get()) {
                  try {
                    int made = call.decide(random);
                    if (measuring.get()) {
                      decisions.add(made);
                    }
                  } catch (Exception e) {
                    failures.increment();
                  }
                }
              });
      thread.setDaemon(true);
      thread.start();
      running.add(thread);
    }
    Thread.sleep(SETTLE_MILLIS);
    long ownCpu0 = ProcessCpu.ownNanos();
    long serverCpu0 = ProcessCpu.ofPid(serverPid);
    long start = System.nanoTime();
    measuring.set(true);
    Thread.sleep(round.toMillis());
    measuring.set(false);
    long elapsed = System.nanoTime() - start;
    long ownCpu = ProcessCpu.ownNanos() - ownCpu0;
    long serverCpu = ProcessCpu.ofPid(serverPid) - serverCpu0;
    stop.set(true);
    for (Thread thread : running) {
      thread.join(JOIN_MILLIS);
    }
    long n = Math.max(1, decisions.sum());
    return new Result(n * 1e9 / elapsed, ownCpu / 1e3 / n, serverCpu / 1e3 / n, failures.sum());
  }
}
