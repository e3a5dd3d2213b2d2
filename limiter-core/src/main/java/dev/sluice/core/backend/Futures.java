package dev.sluice.core.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for an answer, and throwing its failure the way a synchronous caller expects it. */
public final class Futures {
  private Futures() {}

  /** Waits for {@code future}; a failure is thrown as its cause ({@link #rethrown}). */
  public static <T> T await(CompletableFuture<T> future) {
    try {
      return awaitWithin(future, Long.MAX_VALUE);
    } catch (TimeoutException e) {
      throw new IllegalStateException("no answer", e);
    }
  }

  /** {@link #await} for at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no bound). */
  public static <T> T awaitWithin(CompletableFuture<T> future, long timeoutNanos)
      throws TimeoutException {
    try {
      return timeoutNanos == Long.MAX_VALUE
          ? future.get()
          : future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a decision", e);
    } catch (ExecutionException e) {
      throw rethrown(e);
    }
  }

  /** Every answer of {@code answers}, in order, once all are in; the first failure otherwise. */
  public static <T> CompletableFuture<List<T>> all(List<CompletableFuture<T>> answers) {
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            ignored -> {
              List<T> all = new ArrayList<>(answers.size());
              for (CompletableFuture<T> answer : answers) {
                all.add(answer.join());
              }
              return all;
            });
  }

  /** The cause of a failure, as the caller would expect it thrown. */
  public static RuntimeException rethrown(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(cause);
  }

  /** Strips the wrappers futures put around a failure. */
  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
