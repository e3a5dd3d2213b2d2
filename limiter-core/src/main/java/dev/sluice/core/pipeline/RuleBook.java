package dev.sluice.core.pipeline;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.UnknownRuleException;
import dev.sluice.core.decision.CompiledPolicy;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Rule resolution, once for every runtime: a {@link PolicyRef} becomes the {@link CompiledPolicy}
 * that decides it. A named rule is looked up in the runtime's rules (the local store, or a member's
 * copy of the cluster's rules) and compiled once per policy; an inline policy is compiled once and
 * kept in a bounded cache, since callers may send a new one with every request.
 *
 * <p>Thread-safe; lookups of a rule that did not change take no lock.
 */
public final class RuleBook {
  /** Compiled inline policies kept at most: beyond it the least used are compiled again. */
  static final int MAX_CACHED_INLINE_POLICIES = 4_096;

  /** Where the current policy of a named rule comes from. */
  @FunctionalInterface
  public interface Rules {
    /** The rule's current policy, or null if there is no such rule. */
    @Nullable Policy policy(String name);
  }

  private final Rules rules;
  private final ConcurrentHashMap<String, Compiled> named = new ConcurrentHashMap<>();
  private final Cache<Policy, CompiledPolicy> inline =
      Caffeine.newBuilder().maximumSize(MAX_CACHED_INLINE_POLICIES).build();
  private volatile @Nullable CompiledPolicy lastInline;

  public RuleBook(Rules rules) {
    this.rules = rules;
  }

  /**
   * The compiled policy {@code ref} stands for.
   *
   * @throws UnknownRuleException if it names a rule there is none of
   */
  public CompiledPolicy resolve(PolicyRef ref) {
    if (ref instanceof PolicyRef.Inline inlined) {
      // A front end that keeps its policy objects (the Redis port's, one per parameter set) sends
      // the same object again and again: the last one is known by identity, without hashing it.
      CompiledPolicy last = lastInline;
      if (last != null && last.policy() == inlined.policy()) {
        return last;
      }
      CompiledPolicy compiled = inline.get(inlined.policy(), CompiledPolicy::of);
      lastInline = compiled;
      return compiled;
    }
    String rule = ((PolicyRef.Named) ref).rule();
    Policy policy = rules.policy(rule);
    if (policy == null) {
      named.remove(rule);
      throw new UnknownRuleException(rule);
    }
    Compiled compiled = named.get(rule);
    if (compiled != null && compiled.seen() == policy) {
      return compiled.policy();
    }
    // The rules were read again (a client on each change and every half second, a member on each
    // change):
    // an equal policy keeps its compiled form, and the new object is remembered so that the calls
    // after this one compare references, not policies.
    CompiledPolicy current =
        compiled != null && compiled.policy().policy().equals(policy)
            ? compiled.policy()
            : CompiledPolicy.of(policy);
    named.put(rule, new Compiled(policy, current));
    return current;
  }

  /** A rule's compiled policy, and the policy object it was last looked up with. */
  private record Compiled(Policy seen, CompiledPolicy policy) {}
}
