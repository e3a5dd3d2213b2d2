/**
 * Spring Cloud Gateway: a rate limiter and key resolver for WebFlux routes, a filter function for
 * Gateway Server MVC.
 *
 * <p>Start with {@link dev.sluice.spring.gateway.SluiceGatewayAutoConfiguration}.
 */
@NullMarked
package dev.sluice.spring.gateway;

import org.jspecify.annotations.NullMarked;
