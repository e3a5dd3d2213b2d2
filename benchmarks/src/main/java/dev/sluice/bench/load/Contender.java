package dev.sluice.bench.load;

/**
 * One rate limiter under load: Sluice in one of its shapes, or a peer. Every contender runs under
 * the same {@link LoadDriver}, so the generator, key distribution, thread count and JVM are the
 * same for all of them; only {@link #decide} differs.
 *
 * <p>{@code decide} is called concurrently from many threads and must be thread-safe. It makes one
 * rate-limit decision for one permit on {@code key} and blocks until the answer is known.
 */
public interface Contender extends AutoCloseable {

  /** A short name for tables and plots, e.g. {@code "Bucket4j client"}. */
  String name();

  /**
   * Makes one decision for one permit on {@code key}. Exceptions count as {@link Outcome#ERROR}.
   */
  Outcome decide(String key) throws Exception;

  /**
   * Releases what the contender holds (clients, members, connections); never processes it did not
   * start.
   */
  @Override
  default void close() {}
}
