package dev.sluice.client;

import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A real limiter's storage behind a network-like delay, or behind no network at all: while {@code
 * down}, its answers never come (a hung grid), which is what a call timeout is for. Like a grid
 * seen from a client, it knows a named rule only once a batch has read it. The client's tests put
 * it between the client and a {@link ReferenceLimiter}.
 */
final class LaggingLimiter extends PipelineRateLimiter {
  volatile boolean down;

  /**
   * State keys whose answers never come while the rest are answered: a partition stuck in a
   * migration.
   */
  volatile Predicate<String> hangs = stateKey -> false;

  LaggingLimiter(PipelineRateLimiter limiter, ScheduledExecutorService network, long lagMicros) {
    this(new Lagging(limiter.stack().storage(), network, lagMicros));
  }

  private LaggingLimiter(Lagging lagging) {
    super(BackendStack.over(lagging).build());
    lagging.owner = this;
  }

  /** The storage, a network away. */
  private static final class Lagging extends BackendDecorator {
    private final ScheduledExecutorService network;
    private final long lagMicros;
    private @Nullable LaggingLimiter owner;

    Lagging(Backend below, ScheduledExecutorService network, long lagMicros) {
      super(below);
      this.network = network;
      this.lagMicros = lagMicros;
    }

    private boolean down() {
      return owner != null && owner.down;
    }

    private boolean hangs(String stateKey) {
      return owner != null && owner.hangs.test(stateKey);
    }

    private <T> CompletableFuture<T> later(Supplier<CompletableFuture<T>> call) {
      return later(false, call);
    }

    private <T> CompletableFuture<T> later(boolean hung, Supplier<CompletableFuture<T>> call) {
      CompletableFuture<T> answer = new CompletableFuture<>();
      if (down() || hung) {
        return answer; // never completes
      }
      Runnable deliver =
          () ->
              call.get()
                  .whenComplete(
                      (value, error) -> {
                        if (error != null) {
                          answer.completeExceptionally(error);
                        } else {
                          answer.complete(value);
                        }
                      });
      if (lagMicros == 0) {
        deliver.run();
      } else {
        network.schedule(deliver, lagMicros, TimeUnit.MICROSECONDS);
      }
      return answer;
    }

    @Override
    public KeyOutcome execute(KeyCommand command, Deadline deadline) {
      return deadline.await(executeAsync(command, deadline));
    }

    @Override
    public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
      return later(hangs(command.stateKey()), () -> below.executeAsync(command, Deadline.NONE));
    }

    @Override
    public CompletableFuture<List<KeyOutcome>> executeAll(
        List<KeyCommand> commands, Deadline deadline) {
      boolean hung = commands.stream().anyMatch(command -> hangs(command.stateKey()));
      return later(hung, () -> below.executeAll(commands, Deadline.NONE));
    }

    @Override
    public CompletableFuture<Void> reset(PolicyRef ref, String stateKey, Deadline deadline) {
      return later(() -> below.reset(ref, stateKey, Deadline.NONE));
    }

    @Override
    public CompletableFuture<Void> fetchRules(Set<String> names, Deadline deadline) {
      return later(() -> below.fetchRules(names, Deadline.NONE));
    }

    /** A named rule is known here once read; an inline policy always. */
    @Override
    public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
      return ref instanceof PolicyRef.Named && !fetched ? null : below.policyOf(ref, fetched);
    }

    /** The limiter's rules, unreachable like its decisions while {@code down}. */
    @Override
    public RuleStore rules() {
      RuleStore rules = below.rules();
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
      if (down()) {
        throw new IllegalStateException("the grid is unreachable (LaggingLimiter is down)");
      }
    }
  }
}
