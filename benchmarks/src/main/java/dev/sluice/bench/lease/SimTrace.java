package dev.sluice.bench.lease;

import dev.sluice.bench.load.ZipfSampler;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * A workload the simulator replays: requests for one rule's keys, each at an instant on the virtual
 * clock, from one of {@code holders} lease holders (clients or members).
 *
 * @param name short name, the table's title
 * @param description what it models, one sentence
 * @param rule the rule every key is limited by, as its text ({@link Rules#parse})
 * @param holders how many holders send the requests
 * @param requests the requests, in ascending time; each call starts the same sequence again
 */
public record SimTrace(
    String name,
    String description,
    String rule,
    int holders,
    Supplier<Iterator<Request>> requests) {

  /**
   * One request: {@code permits} on {@code key} from holder {@code holder}, at {@code atNanos} on
   * the virtual clock (from the simulation's start).
   */
  public record Request(long atNanos, int holder, String key, long permits) {}

  static final long SECOND = 1_000_000_000L;

  /**
   * How a generated workload's rate moves: steady, or a day compressed into the trace's length (a
   * tenth of the peak at night).
   */
  enum Shape {
    STEADY,
    DIURNAL
  }

  /**
   * Poisson arrivals over keys drawn from Zipf's law.
   *
   * @param keys how many keys
   * @param exponent Zipf's s
   * @param perSecond the mean rate over all keys (the peak, for {@link Shape#DIURNAL})
   * @param churnNanos how long a key's identity lives before it is replaced by a new key of the
   *     same rank (staggered over the keys); 0 for keys that live for the whole trace
   */
  record Zipf(
      int keys,
      double exponent,
      double perSecond,
      int holders,
      long durationNanos,
      Shape shape,
      long churnNanos,
      long seed) {

    Iterator<Request> requests() {
      ZipfSampler sampler = new ZipfSampler(keys, exponent);
      SplittableRandom random = new SplittableRandom(seed);
      return new Iterator<>() {
        long at = next(0);

        private long next(long from) {
          // Thinning: candidates at the peak rate, each kept with the shape's share of it.
          long t = from;
          while (true) {
            t += (long) (-Math.log(1 - random.nextDouble()) / perSecond * SECOND) + 1;
            if (shape == Shape.STEADY || t >= durationNanos) {
              return t;
            }
            double day = Math.sin(Math.PI * t / (double) durationNanos);
            if (random.nextDouble() < 0.1 + 0.9 * day * day) {
              return t;
            }
          }
        }

        @Override
        public boolean hasNext() {
          return at < durationNanos;
        }

        @Override
        public Request next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int rank = sampler.next(random);
          String key = "k" + rank;
          if (churnNanos > 0) {
            // Each rank's identity changes every churnNanos, at an offset of its own.
            long offset = Math.floorMod(rank * 0x9E3779B97F4A7C15L, churnNanos);
            key += "." + (at + offset) / churnNanos;
          }
          Request request = new Request(at, random.nextInt(holders), key, 1);
          at = next(at);
          return request;
        }
      };
    }
  }

  /**
   * Bursts: every {@code everyNanos}, {@code size} requests spread evenly over {@code lengthNanos}
   * on a key of their own (a new one each time), from random holders.
   */
  record Bursts(
      long everyNanos, int size, long lengthNanos, int holders, long durationNanos, long seed) {

    Iterator<Request> requests() {
      SplittableRandom random = new SplittableRandom(seed);
      return new Iterator<>() {
        long burst = 0;
        int index = 0;

        @Override
        public boolean hasNext() {
          return burst * everyNanos + everyNanos / 2 < durationNanos;
        }

        @Override
        public Request next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          long at = burst * everyNanos + everyNanos / 2 + index * lengthNanos / size;
          Request request = new Request(at, random.nextInt(holders), "burst" + burst, 1);
          if (++index == size) {
            index = 0;
            burst++;
          }
          return request;
        }
      };
    }
  }

  /** The requests of several workloads, merged in time order (ties: the first workload first). */
  @SafeVarargs
  static Iterator<Request> merged(Iterator<Request>... sources) {
    record Head(Request request, int source) {}
    PriorityQueue<Head> heads =
        new PriorityQueue<>(
            (a, b) ->
                a.request.atNanos() != b.request.atNanos()
                    ? Long.compare(a.request.atNanos(), b.request.atNanos())
                    : Integer.compare(a.source, b.source));
    for (int i = 0; i < sources.length; i++) {
      if (sources[i].hasNext()) {
        heads.add(new Head(sources[i].next(), i));
      }
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return !heads.isEmpty();
      }

      @Override
      public Request next() {
        Head head = heads.poll();
        if (head == null) {
          throw new NoSuchElementException();
        }
        if (sources[head.source].hasNext()) {
          heads.add(new Head(sources[head.source].next(), head.source));
        }
        return head.request;
      }
    };
  }
}
