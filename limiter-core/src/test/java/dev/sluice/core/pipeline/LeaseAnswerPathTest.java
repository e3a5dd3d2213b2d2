package dev.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyDecision;
import dev.sluice.core.lease.LeaseDemand;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What an answer from a lease costs the caller: how deep it goes and what it reads. A limiter with
 * leases over the local storage (which grants leases with the same {@link KeyDecision} an owner
 * does, and stands for a runtime whose rule copies say when they change, as a member's and a
 * client's do) is asked until a lease answers. Measured at the one read of the holder's clock that
 * the answer makes, right after its one lookup in the holder's map: the stack there, from the
 * caller down, and the policy lookups made on the way (by a storage that counts them).
 */
class LeaseAnswerPathTest {
  private final ManualTimeSource time = new ManualTimeSource(0);
  private final AtomicInteger policyLookups = new AtomicInteger();
  private volatile boolean capturing;
  private volatile StackTraceElement @Nullable [] atTheClock;

  /** A short lease: the key turns hot at its eighth request within 100 ms. */
  @Test
  void shortLeaseAnswer_isThreeFramesFromTheCaller_andLooksUpNoPolicy() {
    assertTheLeaseAnswerPath(Policy.of(1_000, Duration.ofMinutes(1)), LeaseDemand.HOT_REQUESTS);
  }

  /**
   * A lease to the end of the window: on a window of a second a key asks for one with its first
   * request. Its answer checks that the rule kept its shape, from the version of the rule copies
   * alone while they do not move.
   */
  @Test
  void windowLeaseAnswer_isThreeFramesFromTheCaller_andLooksUpNoPolicy() {
    assertTheLeaseAnswerPath(Policy.of(100, Duration.ofSeconds(1)), 1);
  }

  private void assertTheLeaseAnswerPath(Policy policy, int requestsBeforeALease) {
    PipelineRateLimiter limiter = limiterWithLeases(policy);
    Check check = Check.of("leased", "k", 1);
    for (int i = 0; i < requestsBeforeALease; i++) {
      assertThat(limiter.tryAcquire(check).decidedBy()).isEqualTo(DecidedBy.LIMITER);
    }

    policyLookups.set(0);
    capturing = true;
    Decision leased = limiter.tryAcquire(check);
    capturing = false;

    assertThat(leased.decidedBy()).isEqualTo(DecidedBy.LEASE);
    assertThat(policyLookups.get()).as("policy lookups on a lease answer").isZero();
    assertThat(framesBetweenTheCallerAndTheClock())
        .as("from the caller to the holder's clock read")
        .containsExactly(
            "LeaseHolder.answer", "LeaseAnswers.execute", "PipelineRateLimiter.tryAcquire");
  }

  /**
   * A limiter holding leases on the manual clock, over a local storage that counts policy lookups
   * and whose rule copies do not change here (version 0).
   */
  private PipelineRateLimiter limiterWithLeases(Policy policy) {
    LocalRateLimiter local = LocalRateLimiter.builder().timeSource(time).build();
    local.rules().put(new Rule("leased", policy));
    Backend counting =
        new BackendDecorator(local.stack().storage()) {
          @Override
          public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
            policyLookups.incrementAndGet();
            return below.policyOf(ref, fetched);
          }

          @Override
          public long rulesVersion() {
            return 0;
          }
        };
    return new PipelineRateLimiter(BackendStack.over(counting).leases(this::clock).build());
  }

  private long clock() {
    if (capturing && atTheClock == null) {
      atTheClock = new Throwable().getStackTrace();
    }
    return time.nowNanos();
  }

  /** The frames below the clock's own, down to (not including) this test's method. */
  private List<String> framesBetweenTheCallerAndTheClock() {
    StackTraceElement[] stack = atTheClock;
    assertThat(stack).as("the answer read the clock").isNotNull();
    List<String> frames = new ArrayList<>();
    for (int i = 1; i < stack.length; i++) { // 0: clock() itself
      StackTraceElement frame = stack[i];
      String className = frame.getClassName();
      if (className.equals(getClass().getName())) {
        return frames;
      }
      if (className.contains("$$Lambda")) {
        continue; // the clock's method reference, where a runtime shows it
      }
      frames.add(className.substring(className.lastIndexOf('.') + 1) + "." + frame.getMethodName());
    }
    throw new AssertionError("the caller is not on the stack: " + Arrays.toString(stack));
  }
}
