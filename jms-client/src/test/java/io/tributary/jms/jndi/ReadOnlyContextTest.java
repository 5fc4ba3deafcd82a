package io.tributary.jms.jndi;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import javax.naming.Binding;
import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.NotContextException;
import javax.naming.OperationNotSupportedException;

import jakarta.jms.InvalidDestinationException;
import org.junit.jupiter.api.Test;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributaryTopic;

import static io.tributary.jms.jndi.TributaryInitialContextFactoryTest.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReadOnlyContextTest {

    private static InitialContext ordersAndPrices() throws NamingException {
        return context("connectionFactory.local", "h:1", "queue.jms/orders", "orders", "topic.prices", "prices");
    }

    @Test
    void namesAreLookedUpAsStringsAndAsCompositeNames() throws NamingException, InvalidDestinationException {
        InitialContext context = ordersAndPrices();
        assertEquals(TributaryQueue.of("orders"), context.lookup(new CompositeName("jms/orders")));
        assertEquals(TributaryQueue.of("orders"), context.lookup("jms/orders"));
        assertEquals(TributaryTopic.of("prices"), context.lookup(new CompositeName("prices")));
        assertEquals(TributaryTopic.of("prices"), context.lookupLink("prices"));
    }

    @Test
    void anUnknownNameIsNotFoundAndTheMessageListsWhatIsBound() throws NamingException {
        InitialContext context = ordersAndPrices();
        NameNotFoundException e = assertThrows(NameNotFoundException.class, () -> context.lookup("order"));
        assertTrue(e.getMessage().contains("'order' is not bound"), e.getMessage());
        assertTrue(e.getMessage().contains("[jms/orders, local, prices]"), e.getMessage());
        assertThrows(NameNotFoundException.class, () -> context.lookup(new CompositeName("jms/order")));
    }

    @Test
    void listAndListBindingsEnumerateEveryBindingInNameOrder() throws NamingException {
        InitialContext context = ordersAndPrices();

        List<String> pairs = new ArrayList<>();
        NamingEnumeration<NameClassPair> list = context.list("");
        while (list.hasMore()) {
            NameClassPair pair = list.next();
            pairs.add(pair.getName() + "=" + pair.getClassName());
        }
        assertEquals(List.of("jms/orders=" + TributaryQueue.class.getName(),
                "local=" + TributaryConnectionFactory.class.getName(), "prices=" + TributaryTopic.class.getName()),
                pairs);

        Map<String, Object> bound = new TreeMap<>();
        NamingEnumeration<Binding> bindings = context.listBindings(new CompositeName(""));
        while (bindings.hasMore()) {
            Binding binding = bindings.next();
            bound.put(binding.getName(), binding.getObject());
        }
        assertEquals(List.of("jms/orders", "local", "prices"), new ArrayList<>(bound.keySet()));
        assertSame(context.lookup("local"), bound.get("local"));
    }

    @Test
    void listingABoundObjectOrAnUnknownNameIsRefused() throws NamingException {
        InitialContext context = ordersAndPrices();
        NotContextException notContext = assertThrows(NotContextException.class, () -> context.list("prices"));
        assertTrue(notContext.getMessage().contains("'prices'"), notContext.getMessage());
        assertThrows(NameNotFoundException.class, () -> context.listBindings("nothing"));
    }

    @Test
    void theContextIsReadOnly() throws NamingException {
        InitialContext context = ordersAndPrices();
        List<Executable> writes = List.of(
                () -> context.bind("x", "y"),
                () -> context.bind(new CompositeName("x"), "y"),
                () -> context.rebind("prices", "y"),
                () -> context.rebind(new CompositeName("prices"), "y"),
                () -> context.unbind("prices"),
                () -> context.unbind(new CompositeName("prices")),
                () -> context.rename("prices", "quotes"),
                () -> context.rename(new CompositeName("prices"), new CompositeName("quotes")),
                () -> context.createSubcontext("sub"),
                () -> context.createSubcontext(new CompositeName("sub")),
                () -> context.destroySubcontext("sub"),
                () -> context.destroySubcontext(new CompositeName("sub")));
        for (Executable write : writes) {
            OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class, write::run);
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
        }
        assertEquals(TributaryTopic.class, context.lookup("prices").getClass());
    }

    @Test
    void theEnvironmentIsACopyAndDeclarationsCannotBeAddedLater() throws NamingException {
        InitialContext context = ordersAndPrices();
        Hashtable<?, ?> environment = context.getEnvironment();
        assertEquals("h:1", environment.get("connectionFactory.local"));
        assertEquals(TributaryInitialContextFactory.class.getName(), environment.get(Context.INITIAL_CONTEXT_FACTORY));
        environment.clear();
        assertEquals("h:1", context.getEnvironment().get("connectionFactory.local"));

        context.addToEnvironment("com.example.setting", "1");
        assertEquals("1", context.getEnvironment().get("com.example.setting"));
        assertEquals("1", context.removeFromEnvironment("com.example.setting"));
        OperationNotSupportedException e = assertThrows(OperationNotSupportedException.class,
                () -> context.addToEnvironment("queue.late", "late"));
        assertTrue(e.getMessage().contains("queue.late"), e.getMessage());
    }

    @Test
    void theEmptyNameIsANewContextOverTheSameBindings() throws NamingException {
        InitialContext context = ordersAndPrices();
        Context root = (Context) context.lookup("");
        assertInstanceOf(ReadOnlyContext.class, root);
        assertSame(context.lookup("local"), root.lookup("local"));
        assertEquals("", root.getNameInNamespace());
        assertEquals("jms/orders", root.getNameParser("").parse("jms/orders").get(0), "names are flat");
        root.close();
        assertSame(context.lookup("local"), context.lookup("local"), "closing the copy leaves the original open");
    }

    @Test
    void closeMayBeCalledTwiceAndLookupsAfterItAreRefused() throws NamingException {
        ReadOnlyContext context = (ReadOnlyContext) new TributaryInitialContextFactory()
                .getInitialContext(new Hashtable<>(Map.of("topic.prices", "prices")));
        Object prices = context.lookup("prices");
        context.close();
        context.close();
        NamingException e = assertThrows(NamingException.class, () -> context.lookup("prices"));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(NamingException.class, () -> context.list(""));
        assertEquals(TributaryTopic.class, prices.getClass(), "objects already looked up stay usable");
    }

    @Test
    void aNullEnvironmentReadsAsEmpty() throws NamingException {
        Context context = new TributaryInitialContextFactory().getInitialContext(null);
        assertEquals("127.0.0.1:9092",
                ((TributaryConnectionFactory) context.lookup("ConnectionFactory")).getBootstrapServers());
        assertNotSame(context.lookup(""), context);
    }

    @FunctionalInterface
    private interface Executable {
        void run() throws NamingException;
    }
}
