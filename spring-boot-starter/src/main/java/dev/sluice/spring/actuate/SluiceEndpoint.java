package dev.sluice.spring.actuate;

import dev.sluice.core.Decision;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Rule;
import dev.sluice.core.headers.RateLimitHeaders;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The Actuator endpoint {@code sluice}:
 *
 * <pre>
 * GET    /actuator/sluice              the rules, each with its limits as RateLimit-Policy lists them
 * GET    /actuator/sluice/{rule}/{key} the key's state (a peek: nothing is taken)
 * DELETE /actuator/sluice/{rule}/{key} resets the key: callers with the admin role only
 * </pre>
 *
 * Expose it as any endpoint ({@code management.endpoints.web.exposure.include: health,sluice}).
 */
@Endpoint(id = "sluice")
public class SluiceEndpoint {
  private final RateLimiter limiter;
  private final String adminRole;

  public SluiceEndpoint(RateLimiter limiter, String adminRole) {
    this.limiter = limiter;
    this.adminRole = adminRole;
  }

  /** The rules, by name. */
  @ReadOperation
  public Map<String, Object> rules() {
    List<Rule> rules =
        limiter.rules().all().stream().sorted(Comparator.comparing(Rule::name)).toList();
    Map<String, Object> byName = new LinkedHashMap<>();
    for (Rule rule : rules) {
      byName.put(
          rule.name(),
          Map.of(
              "policy",
              RateLimitHeaders.quotaPolicies(rule.name(), rule.policy()).stream()
                  .map(
                      quota ->
                          Map.of(
                              "name", quota.name(),
                              "quota", quota.quota(),
                              "windowMs", quota.windowNanos() / 1_000_000))
                  .toList(),
              "shadow",
              rule.policy().shadow(),
              "onDenied",
              rule.policy().onDenied().wireName()));
    }
    return Map.of("rules", byName);
  }

  /** The state of {@code key} under {@code rule}, without taking anything. */
  @ReadOperation
  public Map<String, Object> key(@Selector String rule, @Selector String key) {
    Decision state = limiter.peek(PolicyRef.rule(rule), key);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("rule", rule);
    answer.put("key", key);
    answer.put("limit", state.limit());
    answer.put("remaining", state.remaining());
    answer.put("retryAfterMs", state.retryAfterMillis());
    answer.put("resetAfterMs", state.resetAfterMillis());
    answer.put("decidedBy", state.decidedBy().name());
    return answer;
  }

  /** Forgets {@code key}'s state under {@code rule}: its next request starts afresh. */
  @DeleteOperation
  public WebEndpointResponse<Map<String, Object>> reset(
      SecurityContext security, @Selector String rule, @Selector String key) {
    if (!security.isUserInRole(adminRole)) {
      return new WebEndpointResponse<>(
          Map.of("error", "forbidden", "message", "resetting a key needs the role " + adminRole),
          403);
    }
    limiter.reset(PolicyRef.rule(rule), key);
    return new WebEndpointResponse<>(Map.of("rule", rule, "key", key, "reset", true));
  }
}
