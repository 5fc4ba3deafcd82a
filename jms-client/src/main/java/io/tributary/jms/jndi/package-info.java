/**
 * JNDI support for Tributary's Jakarta Messaging provider: {@link io.tributary.jms.jndi.TributaryInitialContextFactory}
 * for Java SE applications that look up connection factories and destinations declared in {@code jndi.properties},
 * and {@link io.tributary.jms.jndi.TributaryObjectFactory}, which rebuilds them from the JNDI references they return
 * from {@code getReference()}.
 */
package io.tributary.jms.jndi;
