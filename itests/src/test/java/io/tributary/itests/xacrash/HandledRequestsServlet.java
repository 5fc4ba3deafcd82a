package io.tributary.itests.xacrash;

import java.io.IOException;

import jakarta.ejb.EJB;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code GET /handled}: the ids of the committed rows, one per line, then a line {@code in-doubt=N} with the number
 * of transactions the database holds prepared and undecided, and a last line {@code pid=N} with the server's process
 * id (the test stops the server by it when the container cannot).
 */
@WebServlet("/handled")
public class HandledRequestsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @EJB
    private HandledRequests requests;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        for (String id : requests.ids()) {
            response.getWriter().append(id).append('\n');
        }
        response.getWriter().append("in-doubt=").append(Long.toString(requests.inDoubt())).append('\n');
        response.getWriter().append("pid=").append(Long.toString(ProcessHandle.current().pid())).append('\n');
    }
}
