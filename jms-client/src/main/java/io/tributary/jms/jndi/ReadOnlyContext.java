package io.tributary.jms.jndi;

import java.util.Hashtable;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.function.Function;

import javax.naming.Binding;
import javax.naming.CompoundName;
import javax.naming.Context;
import javax.naming.Name;
import javax.naming.NameClassPair;
import javax.naming.NameNotFoundException;
import javax.naming.NameParser;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.NotContextException;
import javax.naming.OperationNotSupportedException;

/**
 * The context {@link TributaryInitialContextFactory} returns: a flat, read-only namespace of the objects declared in
 * the environment, fixed when the context is created. A name is one atomic string; a multi-component {@link Name}
 * such as the composite name {@code jms/orders} is read as its components joined by {@code /}, so
 * {@code queue.jms/orders=orders} is found either way. Binding, renaming and subcontexts are refused with
 * {@link OperationNotSupportedException}: the declarations are the single source of truth.
 *
 * <p>Any thread: the bindings are immutable, the environment a synchronized {@link Hashtable}. {@link #close()} may be
 * called twice; any other method after it throws a {@link NamingException}. Objects already looked up stay usable.
 */
final class ReadOnlyContext implements Context {

    private static final Properties FLAT_SYNTAX = new Properties();

    static {
        FLAT_SYNTAX.setProperty("jndi.syntax.direction", "flat");
    }

    private static final NameParser FLAT_PARSER = name -> new CompoundName(name, FLAT_SYNTAX);

    private final SortedMap<String, Object> bindings;
    private final Hashtable<Object, Object> environment;
    private volatile boolean closed;

    /**
     * @param bindings    the objects by name; not copied, so the caller must not change it
     * @param environment copied
     */
    ReadOnlyContext(SortedMap<String, Object> bindings, Hashtable<?, ?> environment) {
        this.bindings = bindings;
        this.environment = new Hashtable<>(environment);
    }

    @Override
    public Object lookup(Name name) throws NamingException {
        return lookup(atomic(name));
    }

    /** The object bound to {@code name}; for the empty name, a new context with the same bindings. */
    @Override
    public Object lookup(String name) throws NamingException {
        checkOpen();
        if (name.isEmpty()) {
            return new ReadOnlyContext(bindings, environment);
        }
        Object object = bindings.get(name);
        if (object == null) {
            throw notFound(name);
        }
        return object;
    }

    @Override
    public Object lookupLink(Name name) throws NamingException {
        return lookup(name);
    }

    @Override
    public Object lookupLink(String name) throws NamingException {
        return lookup(name);
    }

    @Override
    public NamingEnumeration<NameClassPair> list(Name name) throws NamingException {
        return list(atomic(name));
    }

    @Override
    public NamingEnumeration<NameClassPair> list(String name) throws NamingException {
        checkRoot(name);
        return enumerate(e -> new NameClassPair(e.getKey(), e.getValue().getClass().getName()));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(Name name) throws NamingException {
        return listBindings(atomic(name));
    }

    @Override
    public NamingEnumeration<Binding> listBindings(String name) throws NamingException {
        checkRoot(name);
        return enumerate(e -> new Binding(e.getKey(), e.getValue()));
    }

    @Override
    public void bind(Name name, Object obj) throws NamingException {
        throw readOnly("bind", atomic(name));
    }

    @Override
    public void bind(String name, Object obj) throws NamingException {
        throw readOnly("bind", name);
    }

    @Override
    public void rebind(Name name, Object obj) throws NamingException {
        throw readOnly("rebind", atomic(name));
    }

    @Override
    public void rebind(String name, Object obj) throws NamingException {
        throw readOnly("rebind", name);
    }

    @Override
    public void unbind(Name name) throws NamingException {
        throw readOnly("unbind", atomic(name));
    }

    @Override
    public void unbind(String name) throws NamingException {
        throw readOnly("unbind", name);
    }

    @Override
    public void rename(Name oldName, Name newName) throws NamingException {
        throw readOnly("rename", atomic(oldName));
    }

    @Override
    public void rename(String oldName, String newName) throws NamingException {
        throw readOnly("rename", oldName);
    }

    @Override
    public void destroySubcontext(Name name) throws NamingException {
        throw readOnly("destroySubcontext", atomic(name));
    }

    @Override
    public void destroySubcontext(String name) throws NamingException {
        throw readOnly("destroySubcontext", name);
    }

    @Override
    public Context createSubcontext(Name name) throws NamingException {
        throw readOnly("createSubcontext", atomic(name));
    }

    @Override
    public Context createSubcontext(String name) throws NamingException {
        throw readOnly("createSubcontext", name);
    }

    /** A parser that reads any string as one atomic name. */
    @Override
    public NameParser getNameParser(Name name) throws NamingException {
        checkOpen();
        return FLAT_PARSER;
    }

    @Override
    public NameParser getNameParser(String name) throws NamingException {
        checkOpen();
        return FLAT_PARSER;
    }

    @Override
    public Name composeName(Name name, Name prefix) throws NamingException {
        checkOpen();
        Name composed = (Name) prefix.clone();
        return composed.addAll(name);
    }

    @Override
    public String composeName(String name, String prefix) throws NamingException {
        checkOpen();
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /**
     * Adds to this context's environment. The declarations ({@code connectionFactory.}, {@code queue.},
     * {@code topic.}) are refused: the bindings were fixed when the context was created, and accepting one here
     * would be a setting without effect.
     */
    @Override
    public Object addToEnvironment(String propName, Object propVal) throws NamingException {
        checkOpen();
        if (JndiProperties.isDeclaration(propName)) {
            throw new OperationNotSupportedException("cannot add " + propName + " to the environment of Tributary's"
                    + " JNDI context: declarations are read once, by new InitialContext(environment)");
        }
        return environment.put(propName, propVal);
    }

    @Override
    public Object removeFromEnvironment(String propName) throws NamingException {
        checkOpen();
        return environment.remove(propName);
    }

    /** A copy of this context's environment. */
    @Override
    public Hashtable<?, ?> getEnvironment() throws NamingException {
        checkOpen();
        return new Hashtable<>(environment);
    }

    @Override
    public void close() {
        closed = true;
    }

    /** The empty name: the namespace is flat, so this context is its root. */
    @Override
    public String getNameInNamespace() throws NamingException {
        checkOpen();
        return "";
    }

    private void checkOpen() throws NamingException {
        if (closed) {
            throw new NamingException("Tributary's JNDI context is closed");
        }
    }

    private void checkRoot(String name) throws NamingException {
        checkOpen();
        if (name.isEmpty()) {
            return;
        }
        Object object = bindings.get(name);
        if (object == null) {
            throw notFound(name);
        }
        throw new NotContextException("'" + name + "' is bound to " + object + ", not to a context; list the empty"
                + " name \"\" to see every binding");
    }

    private <T> NamingEnumeration<T> enumerate(Function<Map.Entry<String, Object>, T> element) {
        Iterator<Map.Entry<String, Object>> entries = bindings.entrySet().iterator();
        return new NamingEnumeration<>() {
            @Override
            public T next() {
                return element.apply(entries.next());
            }

            @Override
            public boolean hasMore() {
                return entries.hasNext();
            }

            @Override
            public boolean hasMoreElements() {
                return entries.hasNext();
            }

            @Override
            public T nextElement() {
                return next();
            }

            @Override
            public void close() {
                // nothing held: the bindings are an immutable in-memory map
            }
        };
    }

    private NameNotFoundException notFound(String name) {
        return new NameNotFoundException("'" + name + "' is not bound in Tributary's JNDI context;"
                + " bound names: " + bindings.keySet() + " (declare connectionFactory.<name>, queue.<name> or"
                + " topic.<name> entries in jndi.properties or the InitialContext environment)");
    }

    private OperationNotSupportedException readOnly(String operation, String name) throws NamingException {
        checkOpen();
        return new OperationNotSupportedException("Tributary's JNDI context is read-only: " + operation + "('" + name
                + "') is not supported; declare administered objects in jndi.properties or the InitialContext"
                + " environment");
    }

    /** The atomic name a possibly multi-component name stands for in this flat namespace. */
    private static String atomic(Name name) {
        StringBuilder atomic = new StringBuilder();
        for (int i = 0; i < name.size(); i++) {
            atomic.append(i == 0 ? "" : "/").append(name.get(i));
        }
        return atomic.toString();
    }
}
