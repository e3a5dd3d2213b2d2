package dev.sluice.core;

/** A request named a rule that is not defined. REST maps it to 404. */
public class UnknownRuleException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String rule;
  private final String field;

  public UnknownRuleException(String rule) {
    this(rule, "rule");
  }

  /**
   * @param field where the request named the rule: {@code rule}, or {@code checks[2].rule} in a
   *     batch
   */
  public UnknownRuleException(String rule, String field) {
    super("unknown rule '" + rule + "'");
    this.rule = rule;
    this.field = field;
  }

  public String rule() {
    return rule;
  }

  /** Where the request named the rule ({@code rule}, {@code checks[2].rule}). */
  public String field() {
    return field;
  }
}
