package dev.sluice.bench.load;

import dev.sluice.core.Policy;
import java.util.Optional;

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
   * The rule this contender enforces on every key, said in Sluice's terms (a Bucket4j bandwidth of
   * capacity {@code C} refilled greedily at {@code L} per {@code W} is {@code token_bucket} with
   * burst {@code C}; the Redis script is {@code sliding_window}). Where a scenario counts
   * exactness, every admission is judged against this policy's bound ({@link
   * dev.sluice.bench.load.exactness.AdmissionBound}). Empty for something that limits nothing (the
   * HTTP ceiling).
   */
  default Optional<Policy> enforced() {
    return Optional.empty();
  }

  /**
   * Releases what the contender holds (clients, members, connections); never processes it did not
   * start.
   */
  @Override
  default void close() {}
}
