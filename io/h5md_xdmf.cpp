#include "io/h5md_xdmf.hpp"

#include <algorithm>
#include <cstring>

namespace boids::h5md {

namespace {
constexpr const char* kTail = "  </Grid>\n </Domain>\n</Xdmf>\n";
constexpr const char* kGroup = "/parameters/xdmf";

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}
}  // namespace

XdmfWriter::~XdmfWriter() {
  if (f_) std::fclose(f_);
}

void XdmfWriter::open(const std::string& xdmf_path, const std::string& h5_path, hid_t file,
                      int dims, Precision precision, hid_t gcpl, hid_t dcpl) {
  path_ = xdmf_path;
  h5name_ = xml_escape(base_name(h5_path));
  file_ = file;
  gcpl_ = gcpl;
  dcpl_ = dcpl;
  dims_ = dims;
  precision_ = precision;
  group_ = group_handle(H5Gcreate2(file, kGroup, H5P_DEFAULT, gcpl, H5P_DEFAULT));
  if (!group_) throw Error(h5_path + ": " + kGroup + ": cannot create group");
  f_ = std::fopen(path_.c_str(), "wb");
  if (!f_) throw Error(path_ + ": cannot write here (the XDMF file beside the recording)");
  std::fputs(
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"3.0\">\n"
      " <Domain>\n"
      "  <Grid Name=\"boids\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
      f_);
  tail_at_ = std::ftell(f_);
  write_tail();
}

void XdmfWriter::write_tail() {
  std::fputs(kTail, f_);
  if (std::fflush(f_) != 0 || std::ferror(f_)) failed_ = true;
  if (failed_) throw Error(path_ + ": write failed (disk full?)");
}

// /parameters/xdmf/vertices holds 0, 1, 2, ... (the Polyvertex connectivity), grown to the
// largest frame; vertices_N is a virtual view of its first N rows, one per distinct N.
void XdmfWriter::make_vertices(std::size_t n) {
  if (vertex_views_.count(n)) return;
  if (!vertices_) {
    const hsize_t cur = 0, max = H5S_UNLIMITED;
    const hsize_t chunk = std::min<hsize_t>(65536, std::max<hsize_t>(1024, n));
    Hid space = space_handle(H5Screate_simple(1, &cur, &max));
    Hid dcpl = plist_handle(H5Pcopy(dcpl_));
    H5Pset_chunk(dcpl.get(), 1, &chunk);
    vertices_ = dataset_handle(H5Dcreate2(group_.get(), "vertices", H5T_NATIVE_INT64, space.get(),
                                          H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    if (!vertices_) throw Error(path_ + ": cannot create the vertex list");
  }
  if (hsize_t(n) > vertices_rows_) {
    const hsize_t start = vertices_rows_, count = hsize_t(n) - vertices_rows_, total = n;
    if (H5Dset_extent(vertices_.get(), &total) < 0)
      throw Error(path_ + ": cannot extend the vertex list");
    std::vector<std::int64_t> v(count);
    for (hsize_t i = 0; i < count; ++i) v[i] = std::int64_t(start + i);
    Hid fs = space_handle(H5Dget_space(vertices_.get()));
    H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr);
    Hid ms = space_handle(H5Screate_simple(1, &count, nullptr));
    if (H5Dwrite(vertices_.get(), H5T_NATIVE_INT64, ms.get(), fs.get(), H5P_DEFAULT, v.data()) < 0)
      throw Error(path_ + ": cannot write the vertex list");
    vertices_rows_ = n;
  }
  const hsize_t vdims[2] = {hsize_t(n), 1};
  Hid vspace = space_handle(H5Screate_simple(2, vdims, nullptr));
  const hsize_t all = vertices_rows_, zero = 0, count = n;
  Hid src = space_handle(H5Screate_simple(1, &all, nullptr));
  H5Sselect_hyperslab(src.get(), H5S_SELECT_SET, &zero, nullptr, &count, nullptr);
  Hid dcpl = plist_handle(H5Pcopy(dcpl_));
  const std::string source = std::string(kGroup) + "/vertices";
  const std::string name = "vertices_" + std::to_string(n);
  if (H5Pset_virtual(dcpl.get(), vspace.get(), ".", source.c_str(), src.get()) < 0)
    throw Error(path_ + ": cannot map " + name);
  Hid d = dataset_handle(H5Dcreate2(group_.get(), name.c_str(), H5T_NATIVE_INT64, vspace.get(),
                                    H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  if (!d) throw Error(path_ + ": cannot create " + name);
  vertex_views_.insert(n);
}

void XdmfWriter::make_virtual(const std::string& name, const char* source, hid_t type, int rank,
                              const std::vector<XdmfPart>& parts, std::size_t total) {
  const hsize_t D = hsize_t(dims_);
  const hsize_t vdims[2] = {hsize_t(total), D};
  Hid vspace = space_handle(H5Screate_simple(rank, vdims, nullptr));
  Hid dcpl = plist_handle(H5Pcopy(dcpl_));
  hsize_t row = 0;
  for (const XdmfPart& p : parts) {
    const std::string src_path = kind_path(p.kind) + "/" + source + "/value";
    Hid src_d = dataset_handle(H5Dopen2(file_, src_path.c_str(), H5P_DEFAULT));
    Hid src = space_handle(H5Dget_space(src_d.get()));
    const hsize_t sstart[3] = {p.frame, 0, 0}, scount[3] = {1, hsize_t(p.rows), D};
    H5Sselect_hyperslab(src.get(), H5S_SELECT_SET, sstart, nullptr, scount, nullptr);
    const hsize_t vstart[2] = {row, 0}, vcount[2] = {hsize_t(p.rows), D};
    H5Sselect_hyperslab(vspace.get(), H5S_SELECT_SET, vstart, nullptr, vcount, nullptr);
    if (!src_d || H5Pset_virtual(dcpl.get(), vspace.get(), ".", src_path.c_str(), src.get()) < 0)
      throw Error(path_ + ": cannot map " + name + " onto " + src_path);
    row += p.rows;
  }
  H5Sselect_all(vspace.get());
  Hid d = dataset_handle(H5Dcreate2(group_.get(), name.c_str(), type, vspace.get(), H5P_DEFAULT,
                                    dcpl.get(), H5P_DEFAULT));
  if (!d) throw Error(path_ + ": cannot create " + std::string(kGroup) + "/" + name);
}

void XdmfWriter::add_frame(std::uint64_t frame, double time, const std::vector<XdmfPart>& parts) {
  std::size_t n = 0;
  for (const XdmfPart& p : parts) n += p.rows;
  if (n == 0 || !f_) return;
  const std::string fg = "frame_" + std::to_string(frame);
  {
    Hid g = group_handle(H5Gcreate2(group_.get(), fg.c_str(), H5P_DEFAULT, gcpl_, H5P_DEFAULT));
    if (!g) throw Error(path_ + ": cannot create " + fg);
  }
  const hid_t real = precision_ == Precision::f64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
  make_virtual(fg + "/position", "position", real, 2, parts, n);
  make_virtual(fg + "/velocity", "velocity", real, 2, parts, n);
  make_virtual(fg + "/id", "id", H5T_NATIVE_INT64, 1, parts, n);
  make_virtual(fg + "/kind", "species", H5T_NATIVE_INT8, 1, parts, n);
  make_vertices(n);

  const std::string N = std::to_string(n), D = std::to_string(dims_);
  const std::string prec = precision_ == Precision::f64 ? "8" : "4";
  const std::string at = h5name_ + ":" + kGroup + "/" + fg + "/";
  char tbuf[40];
  std::snprintf(tbuf, sizeof(tbuf), "%.17g", time);
  std::string x;
  x += "   <Grid Name=\"frame " + std::to_string(frame) + "\" GridType=\"Uniform\">\n";
  x += "    <Time Value=\"" + std::string(tbuf) + "\"/>\n";
  x += "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + N +
       "\" NodesPerElement=\"1\">\n";
  x += "     <DataItem Dimensions=\"" + N + " 1\" NumberType=\"Int\" Precision=\"8\" " +
       "Format=\"HDF\">" + h5name_ + ":" + kGroup + "/vertices_" + N + "</DataItem>\n";
  x += "    </Topology>\n";
  x += std::string("    <Geometry GeometryType=\"") + (dims_ == 3 ? "XYZ" : "XY") + "\">\n";
  x += "     <DataItem Dimensions=\"" + N + " " + D + "\" NumberType=\"Float\" Precision=\"" +
       prec + "\" Format=\"HDF\">" + at + "position</DataItem>\n";
  x += "    </Geometry>\n";
  x += "    <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n";
  x += "     <DataItem Dimensions=\"" + N + " " + D + "\" NumberType=\"Float\" Precision=\"" +
       prec + "\" Format=\"HDF\">" + at + "velocity</DataItem>\n";
  x += "    </Attribute>\n";
  x += "    <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n";
  x += "     <DataItem Dimensions=\"" + N + "\" NumberType=\"Int\" Precision=\"8\" " +
       "Format=\"HDF\">" + at + "id</DataItem>\n";
  x += "    </Attribute>\n";
  x += "    <Attribute Name=\"kind\" AttributeType=\"Scalar\" Center=\"Node\">\n";
  x += "     <DataItem Dimensions=\"" + N + "\" NumberType=\"Char\" Precision=\"1\" " +
       "Format=\"HDF\">" + at + "kind</DataItem>\n";
  x += "    </Attribute>\n";
  x += "   </Grid>\n";
  if (std::fseek(f_, tail_at_, SEEK_SET) != 0) failed_ = true;
  std::fwrite(x.data(), 1, x.size(), f_);
  tail_at_ = std::ftell(f_);
  write_tail();
}

void XdmfWriter::close_datasets() {
  vertices_.reset();
  group_.reset();
}

void XdmfWriter::finish() {
  if (!f_) return;
  const bool ok = std::fflush(f_) == 0 && !std::ferror(f_) && !failed_;
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok || !closed) throw Error(path_ + ": write failed (disk full?)");
}

}  // namespace boids::h5md
