package dev.sluice.spring.annotation;

import dev.sluice.client.middleware.Admission;
import dev.sluice.client.middleware.RateLimitGate;
import dev.sluice.core.RateLimiter;
import dev.sluice.spring.KeyedRequest;
import java.io.InterruptedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ReflectionUtils;

/**
 * What a {@link RateLimited} method's proxy does around a call: works out the key and cost from the
 * arguments, enters the one {@link RateLimitGate} (through {@link KeyedRequest}), and then calls
 * the method, its fallback, or throws {@link RateLimitedException}. Per method, the gate and the
 * parsed expressions are made at the first call and kept.
 */
final class RateLimitedInterceptor implements MethodInterceptor {
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  private final Supplier<RateLimiter> limiter;
  private final BeanFactory beanFactory;
  private final Map<Method, Limited> methods = new ConcurrentHashMap<>();

  RateLimitedInterceptor(Supplier<RateLimiter> limiter, BeanFactory beanFactory) {
    this.limiter = limiter;
    this.beanFactory = beanFactory;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = Objects.requireNonNull(invocation.getThis(), "target");
    Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target.getClass());
    Limited limited = methods.computeIfAbsent(method, this::limited);
    Object[] args = invocation.getArguments();
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(target, method, args, NAMES);
    context.setBeanResolver(new BeanFactoryResolver(beanFactory));
    String key = limited.keyOf(context);
    Admission admission;
    try {
      admission = limited.gate.enter(new KeyedRequest(key, limited.costOf(context)));
    } catch (InterruptedIOException e) {
      throw new RateLimitedInterruptedException(limited.rule, e);
    }
    if (!admission.proceeds()) {
      RateLimitedException denied = new RateLimitedException(limited.rule, admission);
      if (limited.fallback == null) {
        throw denied;
      }
      return limited.callFallback(target, args, denied);
    }
    if (admission.shadowBanned()) {
      // The caller must see success and the side effect must not happen.
      return limited.fallback == null
          ? null
          : limited.callFallback(target, args, new RateLimitedException(limited.rule, admission));
    }
    try {
      return invocation.proceed();
    } finally {
      admission.release();
    }
  }

  private Limited limited(Method method) {
    RateLimited annotation =
        Objects.requireNonNull(
            AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class),
            () -> method + " is not @RateLimited");
    return new Limited(method, annotation, limiter.get());
  }

  /** One {@code @RateLimited} method: its gate, parsed expressions and fallback. */
  private static final class Limited {
    final String rule;
    final RateLimitGate gate;
    final @Nullable Expression key;
    final String defaultKey;
    final Expression cost;
    final @Nullable Method fallback;
    final boolean fallbackTakesException;

    Limited(Method method, RateLimited annotation, RateLimiter limiter) {
      this.rule = annotation.rule();
      this.gate = KeyedRequest.gate(limiter).rule(rule).build();
      this.key = annotation.key().isBlank() ? null : PARSER.parseExpression(annotation.key());
      this.defaultKey = method.getDeclaringClass().getName() + "." + method.getName();
      this.cost = PARSER.parseExpression(annotation.cost());
      Method withException = null;
      Method same = null;
      if (!annotation.fallback().isBlank()) {
        Class<?>[] params = method.getParameterTypes();
        Class<?>[] withExceptionParams = Arrays.copyOf(params, params.length + 1);
        withExceptionParams[params.length] = RateLimitedException.class;
        withException =
            ReflectionUtils.findMethod(
                method.getDeclaringClass(), annotation.fallback(), withExceptionParams);
        same =
            ReflectionUtils.findMethod(method.getDeclaringClass(), annotation.fallback(), params);
        if (withException == null && same == null) {
          throw new IllegalStateException(
              "@RateLimited fallback '"
                  + annotation.fallback()
                  + "' of "
                  + method
                  + ": no method of that name takes the same parameters (and, optionally, a"
                  + " RateLimitedException after them)");
        }
        ReflectionUtils.makeAccessible(withException != null ? withException : same);
      }
      this.fallback = withException != null ? withException : same;
      this.fallbackTakesException = withException != null;
    }

    @Nullable String keyOf(MethodBasedEvaluationContext context) {
      if (key == null) {
        return defaultKey;
      }
      Object value = key.getValue(context);
      return value == null || value.toString().isBlank() ? null : value.toString();
    }

    long costOf(MethodBasedEvaluationContext context) {
      Long value = cost.getValue(context, Long.class);
      return value == null ? 1 : value;
    }

    @Nullable Object callFallback(Object target, Object[] args, RateLimitedException denied)
        throws Throwable {
      Method method = Objects.requireNonNull(fallback);
      Object[] fallbackArgs = args;
      if (fallbackTakesException) {
        fallbackArgs = Arrays.copyOf(args, args.length + 1);
        fallbackArgs[args.length] = denied;
      }
      try {
        return method.invoke(target, fallbackArgs);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  /** A call interrupted while its gate waited for a permit; the permit was given back. */
  static final class RateLimitedInterruptedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RateLimitedInterruptedException(String rule, InterruptedIOException cause) {
      super("interrupted while waiting for a permit of '" + rule + "'", cause);
    }
  }
}
