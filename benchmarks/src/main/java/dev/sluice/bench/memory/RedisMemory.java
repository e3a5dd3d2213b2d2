package dev.sluice.bench.memory;

import dev.sluice.bench.load.RedisServer;
import dev.sluice.bench.load.RedisSlidingWindow;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Redis measured the way the issue asks: {@code INFO memory} {@code used_memory} after minus before
 * writing 1,000,000 keys ({@code mem|m0} to {@code mem|m999999}, the grid stores' keys) through the
 * load harness's sliding-window Lua script ({@code sliding_window.lua}: a hash of three integer
 * fields, {@code PEXPIRE 2W} on every admitted write), on a redis-server from the OS packages that
 * this probe starts on a free loopback port with persistence off and stops again. {@code
 * --no-expire} runs the same script with its {@code PEXPIRE} line removed, so the difference is
 * what Redis's expiry costs per key.
 *
 * <p>{@code used_memory} is what Redis's allocator (jemalloc) has handed out, size classes
 * included: the key's string, the hash object and its listpack, the main dictionary's entry and
 * bucket slot, and with expiry the expires dictionary's entry and slot. It leaves out allocator
 * fragmentation (in {@code used_memory_rss}), as the JVM figures leave out heap that is free.
 *
 * <p>Run: {@code MemoryProbe redis [--no-expire] [--keys=N]} (see {@link MemoryProbe} for the java
 * command line).
 */
final class RedisMemory {
  private RedisMemory() {}

  static void run(MemoryProbe.Options options) throws Exception {
    Path binary =
        RedisServer.findBinary()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "redis-server not found (install it from the OS packages:"
                            + " apt-get install -y redis-server)"));
    String script = RedisSlidingWindow.script();
    if (!options.redisExpire()) {
      String without = script.replaceAll("(?m)^\\s*redis\\.call\\('PEXPIRE'.*$", "");
      if (without.equals(script)) {
        throw new IllegalStateException("the script's PEXPIRE line was not found");
      }
      script = without;
    }
    try (RedisServer server = RedisServer.start(binary, Path.of("benchmarks/target/memory"))) {
      RedisClient client = server.newClient();
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        String sha = connection.sync().scriptLoad(script);
        connection.sync().flushall();
        Thread.sleep(1_000);
        long before = RedisServer.usedMemory(connection);
        RedisAsyncCommands<String, String> async = connection.async();
        Semaphore inFlight = new Semaphore(1_000);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        String window = Long.toString(MemoryProbe.WINDOW_NANOS / 1_000);
        for (int i = 0; i < options.keys() && failure.get() == null; i++) {
          inFlight.acquireUninterruptibly();
          async
              .<Object>evalsha(
                  sha,
                  ScriptOutputType.MULTI,
                  new String[] {MemoryProbe.RULE + '|' + MemoryProbe.subject(i)},
                  "1000",
                  window,
                  "1")
              .whenComplete(
                  (answer, error) -> {
                    if (error != null) {
                      failure.compareAndSet(null, error);
                    } else if (!(answer instanceof java.util.List<?> list)
                        || !Long.valueOf(1L).equals(list.get(0))) {
                      failure.compareAndSet(null, new IllegalStateException("denied: " + answer));
                    }
                    inFlight.release();
                  });
        }
        if (!inFlight.tryAcquire(1_000, 120, TimeUnit.SECONDS) || failure.get() != null) {
          throw new IllegalStateException("filling Redis failed: " + failure.get());
        }
        double fillSeconds = (System.nanoTime() - start) / 1e9;
        Thread.sleep(1_000); // let any incremental rehash finish
        long after = RedisServer.usedMemory(connection);
        long stored = connection.sync().dbsize();
        if (stored != options.keys()) {
          throw new IllegalStateException("Redis holds " + stored + " keys");
        }
        String keyspace = connection.sync().info("keyspace").trim().replace("\r\n", " ");
        long usage = 0;
        int samples = Math.min(1_000, options.keys());
        for (int s = 0; s < samples; s++) {
          Long bytes =
              connection
                  .sync()
                  .memoryUsage(
                      MemoryProbe.RULE + '|' + MemoryProbe.subject(s * (options.keys() / samples)));
          usage += bytes == null ? 0 : bytes;
        }
        String version = RedisServer.version(connection);
        double perKey = (after - before) / (double) options.keys();
        long tableSlots = Long.highestOneBit(options.keys() - 1L) << 1;
        System.out.printf(
            Locale.ROOT,
            "Redis %s: filled %,d keys in %.1f s; used_memory %,d -> %,d B = %.1f B per key%n",
            version,
            options.keys(),
            fillSeconds,
            before,
            after,
            perKey);
        System.out.printf(
            Locale.ROOT,
            "%s; MEMORY USAGE (key, value and dict entry, Redis's estimate) %.1f B per key"
                + " (mean of %d); each dictionary's table has %,d slots of 8 B = %.1f B per key"
                + " (computed: the next power of two)%n",
            keyspace,
            usage / (double) samples,
            samples,
            tableSlots,
            tableSlots * 8.0 / options.keys());
        System.out.printf(
            Locale.ROOT,
            "RESULT label=redis %s %s;members=1;keys=%d;entries=%d;heapPerKey=%.1f;histPerKey=%.1f;"
                + "memoryUsage=%.1f;fillPerSecond=%.0f%n",
            version,
            options.redisExpire() ? "expire" : "no-expire",
            options.keys(),
            stored,
            perKey,
            perKey,
            usage / (double) samples,
            options.keys() / fillSeconds);
        connection.sync().flushall();
      } finally {
        client.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }
}
