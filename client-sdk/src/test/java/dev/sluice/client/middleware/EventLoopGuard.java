package dev.sluice.client.middleware;

import dev.sluice.core.RateLimiter;
import dev.sluice.core.RuleStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import reactor.core.scheduler.Schedulers;

/**
 * A limiter that refuses its blocking calls on an event loop thread (a thread Reactor marks
 * non-blocking, such as reactor-netty's): what a reactive gate must never make there. Its
 * asynchronous calls ({@code ...Async}) and {@code rules()} pass; so does any call from another
 * thread.
 */
final class EventLoopGuard {
  private EventLoopGuard() {}

  static RateLimiter wrap(RateLimiter limiter) {
    return guard(RateLimiter.class, limiter);
  }

  private static <T> T guard(Class<T> type, T delegate) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          boolean nonBlocking =
              method.getName().endsWith("Async")
                  || method.getName().equals("rules") // a getter
                  || method.getDeclaringClass() == Object.class;
          if (!nonBlocking && Schedulers.isInNonBlockingThread()) {
            throw new AssertionError(
                type.getSimpleName()
                    + "."
                    + method.getName()
                    + " blocks, and was called on the event loop thread "
                    + Thread.currentThread().getName());
          }
          Object result;
          try {
            result = method.invoke(delegate, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          return result instanceof RuleStore rules && method.getName().equals("rules")
              ? guard(RuleStore.class, rules)
              : result;
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
  }
}
