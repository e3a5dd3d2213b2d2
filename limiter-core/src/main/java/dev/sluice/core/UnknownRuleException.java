package dev.sluice.core;

/** A request named a rule that is not defined. REST maps it to 404. */
public class UnknownRuleException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String rule;

  public UnknownRuleException(String rule) {
    super("unknown rule '" + rule + "'");
    this.rule = rule;
  }

  public String rule() {
    return rule;
  }
}
