package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxBody bounds a request body.
const maxBody = 64 << 10

func (s *Service) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("POST /complaints", s.authorized(s.handleCreate))
	m.HandleFunc("POST /complaints/{id}/assign", s.authorized(s.handleAssign))
	m.HandleFunc("POST /complaints/{id}/resolve", s.authorized(s.byID(s.store.resolve)))
	m.HandleFunc("GET /complaints/search", s.authorized(s.handleSearch))
	m.HandleFunc("GET /complaints/{id}", s.authorized(s.byID(s.store.get)))
	m.HandleFunc("POST /login", s.handleLogin)
	m.HandleFunc("GET /me", s.authorized(s.handleMe))
	m.HandleFunc("GET /health", s.handleHealth)
	m.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int{"count": s.store.count()})
	})
	m.HandleFunc("POST /reset", s.handleReset)
	m.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.Counters()) })
	m.HandleFunc("GET /{$}", s.handleHealth)
	return m
}

func (s *Service) handleCreate(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Body string }
	if readBody(w, r, &in, &in.Title, "title") {
		writeJSON(w, http.StatusCreated, s.store.create(in.Title, in.Body))
	}
}

func (s *Service) handleAssign(w http.ResponseWriter, r *http.Request) {
	var in struct{ Assignee string }
	if !readBody(w, r, &in, &in.Assignee, "assignee") {
		return
	}
	id := r.PathValue("id")
	if !s.opt.Async {
		c, err := s.store.assign(id, in.Assignee, 0)
		s.writeResult(w, id, c, err)
		return
	}
	gen, err := s.store.checkAssignable(id)
	if err != nil {
		s.writeResult(w, id, Complaint{}, err)
		return
	}
	s.commitLater(id, in.Assignee, gen)
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id, "state": StateAccepted})
}

// byID answers a lifecycle call on the complaint the path names.
func (s *Service) byID(op func(id string) (Complaint, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := op(r.PathValue("id"))
		s.writeResult(w, r.PathValue("id"), c, err)
	}
}

func (s *Service) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	count, items := s.store.search(q.Get("q"), q.Get("state"), searchLimit)
	writeJSON(w, http.StatusOK, map[string]any{"count": count, "items": items})
}

func (s *Service) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Service) handleReset(w http.ResponseWriter, _ *http.Request) {
	s.store.reset()
	s.sessions.endAll()
	writeJSON(w, http.StatusOK, map[string]int{"count": s.store.count()})
}

// writeResult answers a lifecycle call. An invalid action is a 409 whose
// body is the bare text INVALID ACTION, so a load tool that reports
// "status body" shows `409 INVALID ACTION`, as the field's tools did.
func (s *Service) writeResult(w http.ResponseWriter, id string, c Complaint, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, c)
	case errors.Is(err, errInvalidAction):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, errInvalidAction.Error())
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("complaint %s not found", id))
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// readBody reads the request's JSON object into v, or answers 400: a
// body that is not one, or required (the field name) left empty.
func readBody(w http.ResponseWriter, r *http.Request, v any, required *string, name string) bool {
	err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(v)
	if err != nil {
		err = fmt.Errorf("request body is not the expected JSON object: %v", err)
	} else if *required == "" {
		err = errors.New(name + " is required")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
	}
	return err == nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
