package dev.sluice.client;

import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Reservation;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A real limiter behind a network-like delay, or behind no network at all: while {@code down}, its
 * answers never come (a hung grid), which is what a call timeout is for. The client's tests put it
 * between the client and a {@link ReferenceLimiter}.
 */
final class LaggingLimiter implements RateLimiter {
  private final RateLimiter limiter;
  private final ScheduledExecutorService network;
  private final long lagMicros;
  volatile boolean down;

  LaggingLimiter(RateLimiter limiter, ScheduledExecutorService network, long lagMicros) {
    this.limiter = limiter;
    this.network = network;
    this.lagMicros = lagMicros;
  }

  private <T> CompletionStage<T> later(java.util.function.Supplier<T> call) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    if (down) {
      return answer; // never completes
    }
    if (lagMicros == 0) {
      try {
        answer.complete(call.get());
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
      return answer;
    }
    network.schedule(
        () -> {
          try {
            answer.complete(call.get());
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        },
        lagMicros,
        TimeUnit.MICROSECONDS);
    return answer;
  }

  @Override
  public Decision tryAcquire(Check check) {
    return tryAcquireAsync(check).toCompletableFuture().join();
  }

  @Override
  public CompletionStage<Decision> tryAcquireAsync(Check check) {
    return later(() -> limiter.tryAcquire(check));
  }

  @Override
  public List<Decision> tryAcquireAll(List<Check> checks) {
    return tryAcquireAllAsync(checks).toCompletableFuture().join();
  }

  @Override
  public CompletionStage<List<Decision>> tryAcquireAllAsync(List<Check> checks) {
    return later(() -> limiter.tryAcquireAll(checks));
  }

  @Override
  public BatchOutcome tryAcquireAll(List<Check> checks, BatchMode mode) {
    return later(() -> limiter.tryAcquireAll(checks, mode)).toCompletableFuture().join();
  }

  @Override
  public Decision release(Check check) {
    return later(() -> limiter.release(check)).toCompletableFuture().join();
  }

  @Override
  public Decision releasePermit(PolicyRef ref, String key, long permitId) {
    return limiter.releasePermit(ref, key, permitId);
  }

  @Override
  public Reservation reserve(Check check, Duration ttl) {
    return limiter.reserve(check, ttl);
  }

  @Override
  public Decision commit(String reservationId, long cost) {
    return limiter.commit(reservationId, cost);
  }

  @Override
  public Decision peek(PolicyRef ref, String key) {
    return limiter.peek(ref, key);
  }

  @Override
  public void reset(PolicyRef ref, String key) {
    limiter.reset(ref, key);
  }

  /** The limiter's rules, unreachable like its decisions while {@code down}. */
  @Override
  public RuleStore rules() {
    RuleStore rules = limiter.rules();
    return new RuleStore() {
      @Override
      public Optional<Rule> find(String name) {
        reachable();
        return rules.find(name);
      }

      @Override
      public Collection<Rule> all() {
        reachable();
        return rules.all();
      }

      @Override
      public void put(Rule rule) {
        reachable();
        rules.put(rule);
      }

      @Override
      public boolean remove(String name) {
        reachable();
        return rules.remove(name);
      }
    };
  }

  private void reachable() {
    if (down) {
      throw new IllegalStateException("the grid is unreachable (LaggingLimiter is down)");
    }
  }
}
