package dev.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * What a request is limited by: a named rule, resolved where the key's state lives, or an inline
 * policy carried with the request (redis-cell style). One of the two, always.
 *
 * <pre>{@code
 * PolicyRef.rule("login")
 * PolicyRef.inline(Policy.of(10, Duration.ofMinutes(1)))
 * }</pre>
 *
 * Each inline policy has its own state on a key: two policies on one subject (10 per second and 100
 * per minute for one user) count separately, each against its own limits ({@link StateKey#inline}).
 *
 * <p>An inline policy under a state name ({@link #inlineUnder}) is the other way round: one state
 * per (state name, subject), whatever parameters each call carries, as a redis-cell key keeps one
 * state however {@code CL.THROTTLE} is called on it. A call with other parameters carries the state
 * over as a rule's change does ({@link dev.sluice.core.decision.KeyDecision}): what was admitted
 * still counts, so changing the parameters never hands a key a fresh budget.
 */
public sealed interface PolicyRef permits PolicyRef.Named, PolicyRef.Inline {

  /** The label of this reference in metrics and headers: the rule name, or {@value #INLINE}. */
  String label();

  /** The key of {@code subject}'s state under this reference ({@link StateKey}). */
  String stateKey(String subject);

  /** The label inline policies share in metrics. */
  String INLINE = "~inline";

  /** A named rule, looked up in the rule store where the decision is made. */
  static Named rule(String name) {
    return new Named(name);
  }

  /** A policy carried by the request. */
  static Inline inline(Policy policy) {
    return new Inline(policy);
  }

  /**
   * A policy carried by the request, whose state on a subject is stored under {@code stateName}
   * whatever the policy is: {@code PolicyRef.inlineUnder("redis", gcra15per30per60s)} and {@code
   * PolicyRef.inlineUnder("redis", gcra5per10per60s)} on subject {@code user123} count into one
   * state, carried over from the one policy's shape to the other's when they differ.
   *
   * @param stateName 1 to {@value StateKey#MAX_STATE_NAME_LENGTH} characters of {@code
   *     [A-Za-z0-9_.:/-]}; names the front end or feature that owns these states ({@code redis},
   *     {@code envoy/edge})
   */
  static Inline inlineUnder(String stateName, Policy policy) {
    return new Inline(policy, stateName);
  }

  /**
   * Whether a state decided under this reference keeps the policy that wrote it: where nothing else
   * could tell that policy later, to carry the state over when the next call brings another one (an
   * inline policy under a state name). A rule's former policies are in its record; an inline
   * policy's identity is part of its state key.
   */
  default boolean storesPolicyWithState() {
    return false;
  }

  /**
   * A reference to the rule {@code rule}.
   *
   * @param rule matches {@code [A-Za-z0-9_.-]{1,64}}
   */
  record Named(String rule) implements PolicyRef {
    public Named {
      Rule.checkName(rule, "rule");
    }

    @Override
    public String label() {
      return rule;
    }

    @Override
    public String stateKey(String subject) {
      return StateKey.of(rule, subject);
    }
  }

  /**
   * An inline policy.
   *
   * @param stateName null: the policy's state is its own ({@link StateKey#inline}); otherwise the
   *     name its state is stored under whatever the policy ({@link #inlineUnder})
   */
  record Inline(Policy policy, @Nullable String stateName) implements PolicyRef {
    public Inline {
      if (policy == null) {
        throw new InvalidPolicyException("policy", "is required for an inline check");
      }
      if (policy.release() == Policy.Release.OPEN) {
        // Its state key is the policy's identity, which anyone can name: an open inline policy
        // would let any caller give back what others took on it.
        throw new InvalidPolicyException(
            "release",
            "'open' is a rule's setting; an inline check's permits are given back with the"
                + " receipt its check answered");
      }
      if (policy.global()) {
        throw new InvalidPolicyException(
            "scope",
            "'global' is a rule's setting; an inline check is counted where it is decided");
      }
      if (stateName != null) {
        StateKey.checkStateName(stateName);
      }
    }

    /** An inline policy with a state of its own. */
    public Inline(Policy policy) {
      this(policy, null);
    }

    @Override
    public String label() {
      return INLINE;
    }

    @Override
    public String stateKey(String subject) {
      return stateName == null
          ? StateKey.inline(policy, subject)
          : StateKey.underName(stateName, subject);
    }

    @Override
    public boolean storesPolicyWithState() {
      return stateName != null;
    }
  }
}
