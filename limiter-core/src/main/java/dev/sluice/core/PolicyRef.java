package dev.sluice.core;

import java.util.Objects;

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

  /** An inline policy. */
  record Inline(Policy policy) implements PolicyRef {
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
    }

    @Override
    public String label() {
      return INLINE;
    }

    @Override
    public String stateKey(String subject) {
      return StateKey.inline(policy, subject);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Inline other && policy.equals(other.policy);
    }

    @Override
    public int hashCode() {
      return Objects.hash(policy);
    }
  }
}
