package dev.sluice.client;

import dev.sluice.core.Policy;
import dev.sluice.core.Rule;
import dev.sluice.core.TimeSource;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.pipeline.BackendStack;
import dev.sluice.core.pipeline.PipelineRateLimiter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real limiter in one JVM (the local runtime, the pipeline every runtime shares), counting the
 * invocations its storage serves: a single command and a batch of them count one each. The client's
 * tests compare against it and put the client in front of it.
 */
final class ReferenceLimiter extends PipelineRateLimiter {
  final AtomicInteger invocations;

  ReferenceLimiter(TimeSource time) {
    this(
        LocalRateLimiter.builder().timeSource(time).build().stack().storage(), new AtomicInteger());
  }

  private ReferenceLimiter(Backend local, AtomicInteger invocations) {
    super(BackendStack.over(new Counting(local, invocations)).build());
    this.invocations = invocations;
  }

  ReferenceLimiter withRule(String name, Policy policy) {
    rules().put(new Rule(name, policy));
    return this;
  }

  /** Counts each invocation that reaches the storage. */
  private static final class Counting extends BackendDecorator {
    private final AtomicInteger invocations;

    Counting(Backend below, AtomicInteger invocations) {
      super(below);
      this.invocations = invocations;
    }

    @Override
    public KeyOutcome execute(KeyCommand command, Deadline deadline) {
      invocations.incrementAndGet();
      return below.execute(command, deadline);
    }

    @Override
    public CompletableFuture<KeyOutcome> executeAsync(KeyCommand command, Deadline deadline) {
      invocations.incrementAndGet();
      return below.executeAsync(command, deadline);
    }

    @Override
    public CompletableFuture<List<KeyOutcome>> executeAll(
        List<KeyCommand> commands, Deadline deadline) {
      invocations.incrementAndGet();
      return below.executeAll(commands, deadline);
    }
  }
}
