package dev.sluice.bench.load;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * S6: bytes per active sliding_window key, Sluice's state map against Redis's, each filled with the
 * same number of live keys.
 */
final class MemoryScenario implements Scenario {
  @Override
  public String id() {
    return "S6";
  }

  @Override
  public void run(BenchContext context) {
    Report report = context.report();
    int keys = context.settings().memoryKeys();
    if (context.settings().quick()) {
      report.memoryNote(
          "Quick mode fills "
              + String.format(Locale.ROOT, "%,d", keys)
              + " keys, not 1M: fixed overheads weigh more per key, so these figures are only a"
              + " smoke test. The full run uses 1,000,000 keys.");
    }
    report.memoryNote(
        "Every key is a live sliding_window state (rule window 1 min, so none expires while"
            + " measured). One member, so there are no backup copies; with backup count 1 a cluster"
            + " holds each entry twice.");
    try {
      SluiceContenders.memory(keys).forEach(report::memory);
    } catch (RuntimeException | LinkageError e) {
      report.memory(MemoryRow.notRun("Sluice (LocalMapStats)", Measurement.reason(e)));
    }
    try {
      report.memory(redisMemory(context.servers().redis(), keys));
    } catch (RuntimeException e) {
      report.memory(MemoryRow.notRun("Redis + Lua (INFO memory delta)", Measurement.reason(e)));
    }
  }

  private static MemoryRow redisMemory(RedisServer redis, int keys) {
    try (RedisSlidingWindow lua =
        new RedisSlidingWindow("Redis + Lua", redis, "mem", 1_000, Duration.ofMinutes(1))) {
      lua.connection().sync().flushall();
      long before = RedisServer.usedMemory(lua.connection());
      Semaphore inFlight = new Semaphore(1_000);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int i = 0; i < keys && failure.get() == null; i++) {
        inFlight.acquireUninterruptibly();
        lua.decideAsync("m" + i)
            .whenComplete(
                (answer, error) -> {
                  if (error != null) {
                    failure.compareAndSet(null, error);
                  }
                  inFlight.release();
                });
      }
      if (!inFlight.tryAcquire(1_000, 60, TimeUnit.SECONDS) || failure.get() != null) {
        throw new IllegalStateException("filling Redis failed: " + failure.get());
      }
      long after = RedisServer.usedMemory(lua.connection());
      long stored = lua.connection().sync().dbsize();
      if (stored != keys) {
        throw new IllegalStateException("Redis holds " + stored + " keys, expected " + keys);
      }
      MemoryRow row =
          new MemoryRow(
              "Redis " + RedisServer.version(lua.connection()) + " + Lua",
              keys,
              (after - before) / (double) keys,
              "`INFO memory` used_memory after minus before, over the key count (a hash of 3"
                  + " integer fields with a TTL)",
              null);
      lua.connection().sync().flushall();
      return row;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }
}
