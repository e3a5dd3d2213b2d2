package dev.sluice.spring;

import dev.sluice.client.middleware.TrustedProxies;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.local.LocalRateLimiter;
import dev.sluice.core.rules.RulesFile;
import dev.sluice.core.spec.LimitSpec;
import dev.sluice.spring.web.ConfiguredGates;
import dev.sluice.spring.web.GateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Checks {@code sluice.*} as Spring Boot binds it, before anything starts: no member, client,
 * watcher or gate exists yet when a broken property fails the start, and Boot's failure report
 * names the property ({@code Property: sluice.rules[0].limit}) and the reason.
 *
 * <p>It checks with the code that uses the values, so that the messages are that code's: the rules
 * through the rules file's own validation, the rules file by loading it, the gates by building them
 * with the same {@link GateFactory} over an in-memory limiter that is never asked anything (a gate
 * is configuration until a request comes), the trusted proxies by parsing them.
 */
final class SluicePropertiesValidator implements Validator {
  /** A property name as Boot prints it: {@code sluice.gates[0].key-header}. */
  private static final Pattern SLUICE_PROPERTY = Pattern.compile("^sluice\\.(\\S+)$");

  @Override
  public boolean supports(Class<?> type) {
    return SluiceProperties.class.isAssignableFrom(type);
  }

  @Override
  public void validate(Object target, Errors errors) {
    SluiceProperties properties = (SluiceProperties) target;
    positive(errors, "call-timeout", properties.callTimeout());
    positive(errors, "rules-reload-interval", properties.rulesReloadInterval());
    if (properties.connectTimeout().isNegative()) {
      errors.rejectValue("connect-timeout", "sluice.invalid", "must not be negative");
    }
    if (properties.deniedCacheSize() < 0) {
      errors.rejectValue("denied-cache-size", "sluice.invalid", "must not be negative (0: off)");
    }
    rules(errors, properties.rules());
    if (properties.rulesFile() != null) {
      try {
        RulesFile.load(properties.rulesFile());
      } catch (ConfigFileException e) {
        errors.rejectValue("rules-file", "sluice.invalid", e.getMessage());
      }
    }
    try {
      TrustedProxies.of(properties.trustedProxies());
    } catch (IllegalArgumentException e) {
      errors.rejectValue("trusted-proxies", "sluice.invalid", e.getMessage());
      return; // the gates' keys read them
    }
    try {
      new ConfiguredGates(
          properties.gates(),
          new GateFactory(LocalRateLimiter.builder().build(), properties.trustedProxies()));
    } catch (InvalidPolicyException e) {
      reject(errors, e.field(), LimitSpec.problem(e));
    }
  }

  /** Each rule through the rules file's validation: its errors name the field as written. */
  private static void rules(Errors errors, List<SluiceProperties.RuleProperties> rules) {
    for (int i = 0; i < rules.size(); i++) {
      try {
        rules.get(i).toSpec().toRule();
      } catch (InvalidPolicyException e) {
        errors.rejectValue(
            "rules[" + i + "]." + dashed(e.field()), "sluice.invalid", LimitSpec.problem(e));
      }
    }
  }

  private static void positive(Errors errors, String property, Duration value) {
    if (value.isZero() || value.isNegative()) {
      errors.rejectValue(property, "sluice.invalid", "must be positive, was " + value);
    }
  }

  /** An error whose field is a full property name ({@code sluice.gates[0].cost}). */
  private static void reject(Errors errors, String property, String reason) {
    Matcher matcher = SLUICE_PROPERTY.matcher(property);
    if (matcher.matches()) {
      errors.rejectValue(matcher.group(1), "sluice.invalid", reason);
    } else {
      errors.reject("sluice.invalid", property + ": " + reason);
    }
  }

  /** {@code permitTtl} as a property is written: {@code permit-ttl}. */
  static String dashed(String field) {
    return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }
}
