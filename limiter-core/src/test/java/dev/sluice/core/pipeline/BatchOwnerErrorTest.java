package dev.sluice.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.BatchMode;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.ManualTimeSource;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.BackendDecorator;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.local.LocalRateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A batch counts all of its checks or none, also when the error only shows at the owner: a rule
 * that this runtime holds no copy of (a client whose copy was dropped when the rule changed) passes
 * the checks made here, and the owner, which no longer has it, answers "unknown rule". What the
 * batch's other keys admitted in the same round is given back, and the error names the check.
 */
class BatchOwnerErrorTest {
  private static final Policy TEN_A_MINUTE = Policy.of(10, Duration.ofMinutes(1));

  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000L);
  private final LocalRateLimiter owner = LocalRateLimiter.builder().timeSource(time).build();
  private final PipelineRateLimiter limiter = limiterWithoutACopyOf("retired");

  @Test
  void batch_whoseRuleTheOwnerNoLongerHas_failsNamingTheCheck_andCountsNothing() {
    List<Check> checks =
        List.of(Check.of("kept", "a", 2), Check.of("retired", "b", 1), Check.of("kept", "c", 3));

    assertThatThrownBy(() -> limiter.tryAcquireAll(checks))
        .isInstanceOfSatisfying(
            UnknownRuleException.class,
            e -> {
              assertThat(e.rule()).isEqualTo("retired");
              assertThat(e.field()).isEqualTo("checks[1].rule");
            });
    assertThatThrownBy(() -> limiter.tryAcquireAllAsync(checks).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            UnknownRuleException.class, e -> assertThat(e.field()).isEqualTo("checks[1].rule"));
    assertThatThrownBy(() -> limiter.tryAcquireAll(checks, BatchMode.ALL))
        .isInstanceOfSatisfying(
            UnknownRuleException.class, e -> assertThat(e.field()).isEqualTo("checks[1].rule"));

    assertThat(owner.peek("kept", "a").remaining()).isEqualTo(10);
    assertThat(owner.peek("kept", "c").remaining()).isEqualTo(10);
  }

  /**
   * A check of the failed batch answered from a lease held here took permits the owner counted for
   * the lease: given back as its receipt would be, so the owner sees the key as before the batch.
   */
  @Test
  void batch_whoseRuleTheOwnerNoLongerHas_givesBackWhatALeaseAnsweredToo() {
    owner.rules().put(new Rule("leased", Policy.of(100, Duration.ofSeconds(1))));
    PipelineRateLimiter leasing = limiterWithoutACopyOf("retired", time::nowNanos);
    Decision first = leasing.tryAcquire(Check.of("leased", "a", 1)); // a window of a second leases
    assertThat(first.decidedBy()).isEqualTo(DecidedBy.LIMITER);
    long before = owner.peek("leased", "a").remaining();

    List<Check> checks = List.of(Check.of("leased", "a", 2), Check.of("retired", "b", 1));
    assertThatThrownBy(() -> leasing.tryAcquireAll(checks))
        .isInstanceOfSatisfying(
            UnknownRuleException.class, e -> assertThat(e.field()).isEqualTo("checks[1].rule"));

    assertThat(leasing.leaseStatistics().answeredLocally())
        .as("the batch's check on a was answered from the lease")
        .isEqualTo(2);
    assertThat(owner.peek("leased", "a").remaining())
        .as("the lease's two permits freed at the owner")
        .isEqualTo(before + 2);
  }

  @Test
  void batch_withoutSuchARule_isCountedAsBefore() {
    limiter.tryAcquireAll(List.of(Check.of("kept", "a", 2), Check.of("kept", "c", 3)));

    assertThat(owner.peek("kept", "a").remaining()).isEqualTo(8);
    assertThat(owner.peek("kept", "c").remaining()).isEqualTo(7);
  }

  /**
   * A limiter over the owner's storage that holds no copy of {@code rule} (so nothing here refuses
   * it before sending), while the owner knows only the rule {@code kept}.
   */
  private PipelineRateLimiter limiterWithoutACopyOf(String rule) {
    return limiterWithoutACopyOf(rule, null);
  }

  /** The same, holding leases on {@code leaseClock} if it is not null. */
  private PipelineRateLimiter limiterWithoutACopyOf(
      String rule, @Nullable LongSupplier leaseClock) {
    owner.rules().put(new Rule("kept", TEN_A_MINUTE));
    Backend noCopy =
        new BackendDecorator(owner.stack().storage()) {
          @Override
          public @Nullable CompiledPolicy policyOf(PolicyRef ref, boolean fetched) {
            if (ref instanceof PolicyRef.Named named && named.rule().equals(rule)) {
              return null;
            }
            return below.policyOf(ref, fetched);
          }
        };
    return new PipelineRateLimiter(BackendStack.over(noCopy).leases(leaseClock).build());
  }
}
