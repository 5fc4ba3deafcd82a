package io.tributary.itests.bench.app;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.jms.BytesMessage;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.JMSProducer;
import jakarta.jms.Queue;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The benchmark's control endpoint inside the server, plain text in and out:
 *
 * <ul>
 *   <li>{@code POST /bench/start?run=R&count=N&size=B}: {@link Tally} starts counting run R (N messages of B bytes);</li>
 *   <li>{@code POST /bench/fill?run=R&count=N&size=B&threads=T&factory=JNDI&queue=Q}: sends N persistent
 *       {@link BytesMessage}s of B bytes with properties {@code benchRun} = R and {@code benchSeq} = 0..N-1 through
 *       the connection factory bound at JNDI name {@code factory} (the provider's pooled factory), from T threads of
 *       the default managed executor, each with its own {@link JMSContext} and synchronous sends, outside any
 *       transaction; {@code queue} is a JNDI name when it starts with {@code java:}, else a queue name for
 *       {@link JMSContext#createQueue}. Answers {@code sent=N nanos=<elapsed>} once every send returned;</li>
 *   <li>{@code GET /bench/status}: {@link Tally#snapshot()}.</li>
 * </ul>
 *
 * <p>Threads: the servlet container's request threads; the fill's senders on the managed executor.
 */
@WebServlet("/bench/*")
public class BenchServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Resource
    private ManagedExecutorService executor;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!"/status".equals(request.getPathInfo())) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        reply(response, Tally.snapshot());
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        try {
            String run = required(request, "run");
            int count = Integer.parseInt(required(request, "count"));
            int size = Integer.parseInt(required(request, "size"));
            if ("/start".equals(path)) {
                Tally.start(run, count, size);
                reply(response, Tally.snapshot());
            } else if ("/fill".equals(path)) {
                int threads = Integer.parseInt(required(request, "threads"));
                long nanos = fill(run, count, size, threads, required(request, "factory"),
                        required(request, "queue"));
                reply(response, String.format(Locale.ROOT, "sent=%d nanos=%d", count, nanos));
            } else {
                response.sendError(HttpServletResponse.SC_NOT_FOUND);
            }
        } catch (IllegalArgumentException e) {
            response.sendError(HttpServletResponse.SC_BAD_REQUEST, e.getMessage());
        }
    }

    private long fill(String run, int count, int size, int threads, String factoryName, String queueName)
            throws IOException {
        ConnectionFactory factory;
        Queue lookedUp = null;
        try {
            InitialContext jndi = new InitialContext();
            factory = (ConnectionFactory) jndi.lookup(factoryName);
            if (queueName.startsWith("java:")) {
                lookedUp = (Queue) jndi.lookup(queueName);
            }
        } catch (NamingException e) {
            throw new IOException("JNDI lookup failed: " + e, e);
        }
        byte[] body = new byte[size];
        new Random(42).nextBytes(body);
        Queue queue = lookedUp;
        long start = System.nanoTime();
        List<Future<?>> senders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            senders.add(executor.submit(() -> {
                send(factory, queue, queueName, run, body, first, threads, count);
                return null;
            }));
        }
        try {
            for (Future<?> sender : senders) {
                sender.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while sending", e);
        } catch (ExecutionException e) {
            throw new IOException("a sender failed: " + e.getCause(), e.getCause());
        } finally {
            for (Future<?> sender : senders) {
                sender.cancel(true);
            }
        }
        return System.nanoTime() - start;
    }

    /** Sends sequence numbers first, first + step, ... below count. */
    private static void send(ConnectionFactory factory, Queue queue, String queueName, String run, byte[] body,
                             int first, int step, int count) throws JMSException {
        try (JMSContext context = factory.createContext()) {
            Queue destination = queue != null ? queue : context.createQueue(queueName);
            JMSProducer producer = context.createProducer().setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int seq = first; seq < count; seq += step) {
                BytesMessage message = context.createBytesMessage();
                message.writeBytes(body);
                message.setStringProperty(Tally.RUN_PROPERTY, run);
                message.setIntProperty(Tally.SEQ_PROPERTY, seq);
                producer.send(destination, message);
            }
        }
    }

    private static String required(HttpServletRequest request, String name) {
        String value = request.getParameter(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("parameter " + name + " is missing");
        }
        return value;
    }

    private static void reply(HttpServletResponse response, String text) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().append(text).append('\n');
    }
}
