/**
 * Spring wiring: {@link dev.sluice.client.spring.SluiceEmbeddedConfiguration} starts a member in
 * the application, {@link dev.sluice.client.spring.SluiceClientConfiguration} a client; both give a
 * {@link dev.sluice.client.SluiceClient} bean to inject as the {@code RateLimiter}.
 *
 * <p>Start with {@link dev.sluice.client.spring.SluiceClientConfiguration}.
 */
@NullMarked
package dev.sluice.client.spring;

import org.jspecify.annotations.NullMarked;
