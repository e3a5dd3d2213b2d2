package dev.sluice.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits calls of a bean method by a rule, through the same gate as HTTP requests:
 *
 * <pre>{@code
 * @RateLimited(rule = "invites", key = "#user.id", cost = "#emails.size()")
 * public void invite(User user, List<String> emails) { ... }
 * }</pre>
 *
 * <p>A call the rule admits runs (a concurrency rule's permit is given back when it returns or
 * throws). A denied call throws {@link RateLimitedException}, which the starter's default handler
 * answers as an HTTP gate would (429 with the rate-limit headers and a JSON body), unless {@link
 * #fallback()} names a method to call instead. Under a rule with {@code onDenied: shadow_ban} a
 * denied call is skipped without an exception: the fallback's answer is returned (null without
 * one), so that the caller sees success and the side effect does not happen.
 *
 * <p>The bean is proxied, so the annotation works on calls from other beans, not on a bean's calls
 * to itself. Blocking: the call waits for the decision (and for a gate's wait); do not put it on a
 * method an event loop calls.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {

  /** The rule to limit by. */
  String rule();

  /**
   * A SpEL expression over the arguments giving the key ({@code #user.id}, {@code #p0}, {@code
   * @tenants.current()}); empty: one key for every call of the method (its class and name). A null
   * or blank key: the call is not limited.
   */
  String key() default "";

  /** A SpEL expression over the arguments giving the permits the call costs. */
  String cost() default "1";

  /**
   * A method of the same bean to call instead of a denied one: the same parameters, optionally
   * followed by a {@link RateLimitedException}, and a compatible return type.
   */
  String fallback() default "";
}
