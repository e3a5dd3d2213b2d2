package dev.sluice.core.backend;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * When the caller of a command stops waiting for its answer: never ({@link #NONE}), or an instant
 * on this JVM's monotonic clock ({@code System.nanoTime}).
 *
 * <p>Only a layer that must never hang its caller bounds a deadline: the client's failure policy,
 * with its call timeout ({@link #within}). The pipeline starts one for an operation of several
 * steps (a batch reads its rules, then sends its commands), so that a bound given to each step
 * counts from the operation's start and the steps together wait at most once the timeout. The
 * layers below honour it: a caller waiting in a batching lane stops at it, and the grid's
 * synchronous invocation waits at most what is left. A runtime without such a layer passes {@link
 * #NONE} and waits as long as the answer takes.
 *
 * <p>It also carries where the caller takes an asynchronous answer, if it said ({@link
 * #answeredOn}): a layer that completes answers completes them there.
 */
public final class Deadline {
  /** No bound, and no start: a bound given to it counts from when it is given. */
  public static final Deadline NONE = new Deadline(false, 0, false, 0, null);

  private final boolean started;
  private final long startNanos;
  private final boolean bounded;
  private final long atNanos;
  private final @Nullable AnswerExecutor answers;

  private Deadline(
      boolean started,
      long startNanos,
      boolean bounded,
      long atNanos,
      @Nullable AnswerExecutor answers) {
    this.started = started;
    this.startNanos = startNanos;
    this.bounded = bounded;
    this.atNanos = atNanos;
    this.answers = answers;
  }

  /**
   * No bound yet, for an operation that started at {@code startNanos} ({@code System.nanoTime}).
   */
  public static Deadline startedAt(long startNanos) {
    return new Deadline(true, startNanos, false, 0, null);
  }

  /** Bounded {@code timeoutNanos} from now. */
  public static Deadline after(long timeoutNanos) {
    return startedAt(System.nanoTime()).within(timeoutNanos);
  }

  /**
   * This deadline, bounded at most {@code timeoutNanos} after its start (after now, if it has no
   * start): the earlier of that and its own bound.
   */
  public Deadline within(long timeoutNanos) {
    long start = started ? startNanos : System.nanoTime();
    long at = start + Math.max(0, timeoutNanos);
    if (bounded && atNanos - at <= 0) {
      return this;
    }
    return new Deadline(true, start, true, at, answers);
  }

  /** This deadline, its caller taking the answer on {@code answers}. */
  public Deadline answeredOn(AnswerExecutor answers) {
    return new Deadline(started, startNanos, bounded, atNanos, answers);
  }

  /** Where the caller takes its asynchronous answer; null: wherever it completes. */
  public @Nullable AnswerExecutor answers() {
    return answers;
  }

  /** Whether the caller stops waiting at some instant. */
  public boolean bounded() {
    return bounded;
  }

  /** The time left, at least 0; {@code Long.MAX_VALUE} when unbounded. */
  public long leftNanos() {
    return bounded ? Math.max(0, atNanos - System.nanoTime()) : Long.MAX_VALUE;
  }

  /**
   * Waits for {@code future} until this deadline; a failure is thrown as its cause ({@link
   * Futures#rethrown}).
   *
   * @throws DeadlineExceededException if no answer came in time; the command may still be decided
   */
  public <T> T await(CompletableFuture<T> future) {
    try {
      return Futures.awaitWithin(future, leftNanos());
    } catch (TimeoutException e) {
      throw new DeadlineExceededException(e);
    }
  }
}
