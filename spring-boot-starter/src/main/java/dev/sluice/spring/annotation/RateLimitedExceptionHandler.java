package dev.sluice.spring.annotation;

import dev.sluice.core.headers.RateLimitHeaders.Header;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Answers a {@link RateLimitedException} that reached a controller as an HTTP gate would: its
 * status, the rate-limit headers and the JSON body. Last in order, so that an application's own
 * handler of the exception wins. Works in Spring MVC and WebFlux alike.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitedExceptionHandler {

  @ExceptionHandler(RateLimitedException.class)
  public ResponseEntity<String> rateLimited(RateLimitedException e) {
    HttpHeaders headers = new HttpHeaders();
    for (Header header : e.headers()) {
      headers.set(header.name(), header.value());
    }
    headers.setContentType(MediaType.APPLICATION_JSON);
    return ResponseEntity.status(e.status()).headers(headers).body(e.body());
  }
}
