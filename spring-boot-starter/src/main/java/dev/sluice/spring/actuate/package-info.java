/**
 * The Actuator endpoint {@code sluice} and the health indicator.
 *
 * <p>Start with {@link dev.sluice.spring.actuate.SluiceActuatorAutoConfiguration}.
 */
@NullMarked
package dev.sluice.spring.actuate;

import org.jspecify.annotations.NullMarked;
