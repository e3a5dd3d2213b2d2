package dev.sluice.spring.web;

import dev.sluice.client.middleware.GateRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * A SpEL expression of a gate's configuration ({@code key-expression}, {@code cost-expression}),
 * evaluated over the request as the gate reads it ({@link GateRequest}): {@code
 * header('X-Tenant')}, {@code path()}, {@code method()}, {@code remoteAddress()}, {@code
 * principal()?.name}.
 *
 * <p>Parsed once, at start, so that a typo fails the start rather than a request. Evaluated in a
 * {@link SimpleEvaluationContext}: the request's methods, no type references, constructors or bean
 * references, since an expression only reads the request.
 */
final class RequestExpression {
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private final String text;
  private final Expression expression;

  private RequestExpression(String text) {
    this.text = text;
    this.expression = PARSER.parseExpression(text);
  }

  /**
   * @throws org.springframework.expression.ParseException if {@code text} is not SpEL
   */
  static RequestExpression parse(String text) {
    return new RequestExpression(text);
  }

  /** The key the expression gives for {@code request}; null (no key) for a null or blank one. */
  @Nullable String keyOf(GateRequest request) {
    Object value = expression.getValue(context(request), request);
    if (value == null) {
      return null;
    }
    String key = value.toString();
    return key.isBlank() ? null : key;
  }

  /**
   * The cost the expression gives for {@code request}; a number, or text that reads as one.
   *
   * @throws IllegalArgumentException if it gives neither
   */
  long costOf(GateRequest request) {
    Object value = expression.getValue(context(request), request);
    if (value instanceof Number number) {
      return number.longValue();
    }
    if (value instanceof String string) {
      try {
        return Long.parseLong(string.trim());
      } catch (NumberFormatException e) {
        // Reported below, with the expression.
      }
    }
    throw new IllegalArgumentException(
        "cost-expression '" + text + "' gave " + value + ", not a number of permits");
  }

  private static EvaluationContext context(GateRequest request) {
    return SimpleEvaluationContext.forReadOnlyDataBinding()
        .withInstanceMethods()
        .withRootObject(request)
        .build();
  }

  @Override
  public String toString() {
    return text;
  }
}
